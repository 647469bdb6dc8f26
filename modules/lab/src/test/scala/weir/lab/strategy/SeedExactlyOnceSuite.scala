package weir.lab.strategy

import weir.strategy.Strategy

/** Core's [[weir.ExactlyOnceSuite]] on the seed's strategies: every task exactly once, within the
  * concurrency limit (batch-io: within the batch).
  */
class SeedExactlyOnceSuite extends weir.ExactlyOnceSuite:
  override protected def strategies: List[Strategy] = Strategies.seed
  override protected def boundedByBatch(strategy: Strategy): Boolean = strategy == BatchIo
