package weir.postgres.queue.otel

import cats.effect.{IO, Resource}
import io.opentelemetry.api.common.Attributes
import io.opentelemetry.api.metrics.Meter
import io.opentelemetry.sdk.metrics.SdkMeterProvider
import io.opentelemetry.sdk.metrics.data.MetricData
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader
import scala.jdk.CollectionConverters.*

/** What the OpenTelemetry SDK's in-memory reader collected at one moment, by instrument name and
  * attributes (`queue`, `kind`, `worker` as `key=value` pairs, sorted), for assertions.
  */
final case class Collected(metrics: Map[String, MetricData]):

  private def key(a: Attributes): Map[String, String] =
    a.asMap.asScala.map((k, v) => k.getKey -> v.toString).toMap

  /** A counter's (or up-down counter's) value for each attribute set. */
  def sums(name: String): Map[Map[String, String], Long] =
    metrics
      .get(name)
      .fold(Map.empty)(
        _.getLongSumData.getPoints.asScala.map(p => key(p.getAttributes) -> p.getValue).toMap
      )

  /** A long gauge's value for each attribute set. */
  def gauges(name: String): Map[Map[String, String], Long] =
    metrics
      .get(name)
      .fold(Map.empty)(
        _.getLongGaugeData.getPoints.asScala.map(p => key(p.getAttributes) -> p.getValue).toMap
      )

  /** A histogram's count of values for each attribute set. */
  def counts(name: String): Map[Map[String, String], Long] =
    metrics
      .get(name)
      .fold(Map.empty)(
        _.getHistogramData.getPoints.asScala.map(p => key(p.getAttributes) -> p.getCount).toMap
      )

  /** A histogram's bucket boundaries (of its first point). */
  def boundaries(name: String): List[Double] =
    metrics(name).getHistogramData.getPoints.asScala.head.getBoundaries.asScala
      .map(_.doubleValue)
      .toList

  /** A metric's unit. */
  def unit(name: String): String = metrics(name).getUnit

object Collected:

  /** An SDK meter provider with an in-memory reader (cumulative), closed on release: the meter of
    * [[OtelWorkerMetrics.scope]], and a way to collect what it holds now.
    */
  def sdk: Resource[IO, (Meter, IO[Collected])] =
    Resource.eval(IO(InMemoryMetricReader.create())).flatMap { reader =>
      Resource
        .fromAutoCloseable(IO(SdkMeterProvider.builder().registerMetricReader(reader).build()))
        .map { provider =>
          val collect = IO(
            Collected(reader.collectAllMetrics().asScala.map(m => m.getName -> m).toMap)
          )
          (provider.get(OtelWorkerMetrics.scope), collect)
        }
    }
