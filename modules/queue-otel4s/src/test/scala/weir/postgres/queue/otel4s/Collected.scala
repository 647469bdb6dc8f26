package weir.postgres.queue.otel4s

import cats.effect.{IO, Resource}
import io.opentelemetry.api.common.Attributes as JAttributes
import io.opentelemetry.sdk.OpenTelemetrySdk
import io.opentelemetry.sdk.metrics.SdkMeterProvider
import io.opentelemetry.sdk.metrics.data.MetricData
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader
import org.typelevel.otel4s.metrics.Meter
import org.typelevel.otel4s.oteljava.OtelJava
import scala.jdk.CollectionConverters.*

/** What the OpenTelemetry SDK's in-memory reader collected at one moment, by instrument name and
  * attributes (`queue`, `kind`, `worker` as `key=value` pairs), for assertions.
  */
final case class Collected(metrics: Map[String, MetricData]):

  private def key(a: JAttributes): Map[String, String] =
    a.asMap.asScala.map((k, v) => k.getKey -> v.toString).toMap

  /** A counter's (or up-down counter's) value for each attribute set. */
  def sums(name: String): Map[Map[String, String], Long] =
    metrics
      .get(name)
      .fold(Map.empty)(
        _.getLongSumData.getPoints.asScala.map(p => key(p.getAttributes) -> p.getValue).toMap
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

  /** An SDK with an in-memory reader (cumulative), closed on release, wrapped by otel4s's oteljava
    * backend: its `Meter[IO]` of [[Otel4sWorkerMetrics.scope]], and a way to collect what the SDK
    * holds now.
    */
  def sdk: Resource[IO, (Meter[IO], IO[Collected])] =
    for
      reader <- Resource.eval(IO(InMemoryMetricReader.create()))
      sdk <- Resource.fromAutoCloseable(IO {
        OpenTelemetrySdk
          .builder()
          .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(reader).build())
          .build()
      })
      otel <- Resource.eval(OtelJava.fromJOpenTelemetry[IO](sdk))
      meter <- Resource.eval(otel.meterProvider.get(Otel4sWorkerMetrics.scope))
    yield
      val collect =
        IO(Collected(reader.collectAllMetrics().asScala.map(m => m.getName -> m).toMap))
      (meter, collect)
