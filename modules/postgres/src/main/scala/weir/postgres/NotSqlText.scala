package weir.postgres

/** Files that are not SQL text, known by their first bytes: pg_dump's archives (custom and tar
  * format) and compressed files. Given to psql, each fails with a line of bytes it cannot read; a
  * user who gives one to weir is told what it is and how to apply it ([[SplitError.NotSql]]).
  */
private[weir] object NotSqlText:

  /** How many of a file's first bytes [[of]] looks at. */
  val Sniffed: Int = 8

  /** What the file whose first bytes (up to [[Sniffed]]) are `head` is, and how to apply it, when
    * it is not SQL text; `None` when it may be.
    */
  def of(head: Array[Byte]): Option[(String, String)] =
    def starts(magic: Int*) =
      head.length >= magic.size && magic.indices.forall(i => (head(i) & 0xff) == magic(i))
    if starts('P', 'G', 'D', 'M', 'P') then Some(archive("custom format (pg_dump -Fc)"))
    // A tar archive's first member, the one pg_dump -Ft writes first.
    else if starts('t', 'o', 'c', '.', 'd', 'a', 't', 0) then
      Some(archive("tar format (pg_dump -Ft)"))
    else if starts(0x1f, 0x8b) then Some(compressed("gzip", "gzip -dc"))
    else if starts(0x28, 0xb5, 0x2f, 0xfd) then Some(compressed("zstd", "zstd -dc"))
    else if starts(0x04, 0x22, 0x4d, 0x18) then Some(compressed("lz4", "lz4 -dc"))
    else if starts('B', 'Z', 'h') then Some(compressed("bzip2", "bzip2 -dc"))
    else if starts(0xfd, '7', 'z', 'X', 'Z', 0) then Some(compressed("xz", "xz -dc"))
    else None

  /** What a directory that pg_dump -Fd wrote is, and how to apply it. */
  val directoryArchive: (String, String) = archive("directory format (pg_dump -Fd)")

  private def archive(format: String): (String, String) =
    (
      s"a pg_dump archive in $format",
      "restore it with pg_restore -d DATABASE FILE, or turn it into SQL and apply that: pg_restore -f - FILE | weir apply-sql -"
    )

  private def compressed(format: String, command: String): (String, String) =
    (s"$format-compressed", s"weir reads SQL text: $command FILE | weir apply-sql -")
