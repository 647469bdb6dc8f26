package weir.lab.workload

import weir.Source

/** What a run processes: where the tasks come from and what is done with each. */
final case class Workload[F[_], A](source: Source[F, A], handler: A => F[Unit])
