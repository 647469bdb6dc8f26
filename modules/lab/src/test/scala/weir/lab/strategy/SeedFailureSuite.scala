package weir.lab.strategy

import weir.strategy.Strategy

/** Core's [[weir.FailureSuite]] on the seed's strategies; the thread-blocking queue is left out of
  * the cancellation test, which runs on the single-threaded virtual-time runtime.
  */
class SeedFailureSuite extends weir.FailureSuite:
  override protected def completing: List[Strategy] = Strategies.seed
  override protected def fiberOnly: List[Strategy] = Strategies.seed.filterNot(_ == BlockingQueue)
