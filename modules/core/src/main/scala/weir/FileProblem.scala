package weir

import java.nio.file.{AccessDeniedException, FileSystemException, NoSuchFileException}

/** What went wrong with a file, in words. java.nio gives the file's path as the message of its
  * exceptions (`NoSuchFileException: /tmp/ca.pem`), so "cannot read /tmp/ca.pem: " + its message
  * said the path twice and not why.
  */
private[weir] object FileProblem:

  /** "no such file or directory", "permission denied", the file system's own reason, or the error's
    * message.
    */
  def describe(error: Throwable): String = error match
    case e: FileSystemException if e.getReason != null => e.getReason
    case _: AccessDeniedException                      => "permission denied"
    case _: NoSuchFileException                        => "no such file or directory"
    case e: FileSystemException                        => e.getClass.getSimpleName
    case e => Option(e.getMessage).getOrElse(e.getClass.getSimpleName)
