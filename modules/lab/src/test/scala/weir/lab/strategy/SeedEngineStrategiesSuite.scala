package weir.lab.strategy

import weir.strategy.Strategy

/** Core's [[weir.engine.EngineStrategiesSuite]] on the seed's strategies; the thread-blocking queue
  * is left out of the graceful-stop test, which runs on the single-threaded virtual-time runtime.
  */
class SeedEngineStrategiesSuite extends weir.engine.EngineStrategiesSuite:
  override protected def completing: List[Strategy] = Strategies.seed
  override protected def fiberOnly: List[Strategy] = Strategies.seed.filterNot(_ == BlockingQueue)
