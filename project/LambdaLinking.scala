import java.io.{ByteArrayOutputStream, File, FileOutputStream, InputStream}
import java.nio.file.{Files, StandardCopyOption}
import java.util.jar.{JarEntry, JarFile, JarOutputStream}

import scala.collection.mutable
import scala.jdk.CollectionConverters._

import org.objectweb.asm.{ClassReader, ClassVisitor, ClassWriter, Handle, MethodVisitor, Opcodes, Type}

/** The staged command's jars with their lambdas made archivable by a JDK 25 AOT cache (build.sbt,
  * `cli`; docs/adr/0013-apply-sql-speed.md, round 7).
  *
  * Scala compiles every lambda to an `invokedynamic` on `LambdaMetafactory.altMetafactory`, asking
  * for a serializable class (and often for bridge methods). A JDK 25 AOT cache keeps the classes of
  * lambdas made by `LambdaMetafactory.metafactory` only, so each Scala lambda's class was spun again
  * at every start: ~1 000 of them for one `weir apply-sql`, half of its start-up. This rewrites a
  * call site to `metafactory` when nothing is lost but serializability, which the command never
  * uses (weir serializes no object with Java serialization):
  *   - no marker interfaces;
  *   - every bridge it asks for is a method that neither the lambda's interface nor any of its
  *     parents declares (Scala 3 asks for a bridge of the instantiated signature, such as
  *     `apply(FiniteDuration)IO` on a `Function1`, which no caller can name); a call site whose
  *     bridge an interface declares is left as it is;
  *   - the interface and its parents can be read (from the jars, or the build's JDK).
  *
  * Nothing else in a class changes (ASM copies each method with its stack map frames). Signed jars
  * are copied as they are (a change would break their signature). Only the staged command's copies
  * are rewritten; the published library jars are not touched.
  *
  * Kept in sbt's syntax (Scala 2.12): scalafmt's Scala 3 rewrite must not run on project/.
  */
object LambdaLinking {
  private val Lmf = "java/lang/invoke/LambdaMetafactory"
  private val FlagMarkers = 2
  private val FlagBridges = 4
  private val Metafactory = new Handle(
    Opcodes.H_INVOKESTATIC,
    Lmf,
    "metafactory",
    "(Ljava/lang/invoke/MethodHandles$Lookup;Ljava/lang/String;Ljava/lang/invoke/MethodType;" +
      "Ljava/lang/invoke/MethodType;Ljava/lang/invoke/MethodHandle;Ljava/lang/invoke/MethodType;)" +
      "Ljava/lang/invoke/CallSite;",
    false
  )

  /** The rule's version: part of the copies' directory, so that a changed rule rewrites every jar
    * (a copy newer than its jar is otherwise reused).
    */
  val Version = 1

  /** Call sites on `altMetafactory` seen, and those rewritten. */
  final case class Counts(seen: Int, rewritten: Int) {
    def +(other: Counts): Counts = Counts(seen + other.seen, rewritten + other.rewritten)
  }

  /** Writes each jar's copy into `dir` (rewritten where a call site could be), reusing a copy newer
    * than its jar: each jar's copy, and the counts of the jars rewritten now.
    */
  def rewrite(jars: Seq[File], dir: File): (Map[File, File], Counts) = {
    // Read only when a jar is rewritten: a staging whose copies are all current opens no jar.
    lazy val interfaces = new Interfaces(jars)
    dir.mkdirs()
    jars.foldLeft((Map.empty[File, File], Counts(0, 0))) { case ((copies, total), jar) =>
      val out = new File(dir, jar.getName)
      val counts =
        if (out.exists && out.lastModified >= jar.lastModified) Counts(0, 0)
        else rewriteJar(jar, out, interfaces)
      (copies + (jar -> out), total + counts)
    }
  }

  private def rewriteJar(jar: File, out: File, interfaces: Interfaces): Counts = {
    val partial = new File(out.getPath + ".partial")
    val in = new JarFile(jar)
    var counts = Counts(0, 0)
    try {
      val names = in.entries.asScala.map(_.getName).toList
      val signed = names.exists(n => n.startsWith("META-INF/") && n.endsWith(".SF"))
      val target = new JarOutputStream(new FileOutputStream(partial))
      try
        in.entries.asScala.foreach { entry =>
          val original = readAll(in.getInputStream(entry))
          val name = entry.getName
          val bytes =
            if (signed || !name.endsWith(".class") || name.endsWith("module-info.class")) original
            else {
              val (rewritten, c) = rewriteClass(original, interfaces)
              counts = counts + c
              rewritten
            }
          val copy = new JarEntry(name)
          copy.setTime(entry.getTime)
          target.putNextEntry(copy)
          target.write(bytes)
          target.closeEntry()
        }
      finally target.close()
    } finally in.close()
    Files.move(partial.toPath, out.toPath, StandardCopyOption.REPLACE_EXISTING)
    counts
  }

  /** The class with its convertible call sites on `metafactory`, or the same bytes when it has none. */
  private def rewriteClass(bytes: Array[Byte], interfaces: Interfaces): (Array[Byte], Counts) = {
    val reader = new ClassReader(bytes)
    val writer = new ClassWriter(reader, 0)
    var counts = Counts(0, 0)
    reader.accept(
      new ClassVisitor(Opcodes.ASM9, writer) {
        override def visitMethod(
            access: Int,
            name: String,
            desc: String,
            signature: String,
            exceptions: Array[String]
        ): MethodVisitor =
          new MethodVisitor(Opcodes.ASM9, super.visitMethod(access, name, desc, signature, exceptions)) {
            override def visitInvokeDynamicInsn(name: String, desc: String, bsm: Handle, args: Object*): Unit =
              if (bsm.getOwner == Lmf && bsm.getName == "altMetafactory") {
                val plain = convertible(name, desc, args, interfaces)
                counts = counts + Counts(1, if (plain) 1 else 0)
                if (plain) super.visitInvokeDynamicInsn(name, desc, Metafactory, args.take(3): _*)
                else super.visitInvokeDynamicInsn(name, desc, bsm, args: _*)
              } else super.visitInvokeDynamicInsn(name, desc, bsm, args: _*)
          }
      },
      0
    )
    if (counts.rewritten == 0) (bytes, counts) else (writer.toByteArray, counts)
  }

  /** altMetafactory's arguments: metafactory's three, the flags, then (with FLAG_MARKERS) a count
    * and the marker interfaces, then (with FLAG_BRIDGES) a count and the bridges' method types.
    */
  private def convertible(name: String, desc: String, args: Seq[Object], interfaces: Interfaces): Boolean = {
    def count(o: Object) = o.asInstanceOf[Integer].intValue
    val flags = count(args(3))
    val afterFlags = args.drop(4)
    val markers = if ((flags & FlagMarkers) == 0) 0 else count(afterFlags.head)
    val afterMarkers = if ((flags & FlagMarkers) == 0) afterFlags else afterFlags.drop(1 + markers)
    val bridges =
      if ((flags & FlagBridges) == 0) Nil
      else afterMarkers.slice(1, 1 + count(afterMarkers.head)).map(_.asInstanceOf[Type].getDescriptor)
    val interface = Type.getReturnType(desc).getInternalName
    markers == 0 && bridges.forall(bridge => interfaces.declares(interface, name + bridge).contains(false))
  }

  /** Interfaces read from the jars, then from the build's JDK, as the check needs them: each one's
    * parents and the methods it declares (name + descriptor).
    */
  private final class Interfaces(jars: Seq[File]) {
    private final case class Interface(parents: Seq[String], methods: Set[String])

    private val owners: Map[String, File] = jars.flatMap { jar =>
      val file = new JarFile(jar)
      try file.entries.asScala.map(_.getName).filter(_.endsWith(".class")).map(_ -> jar).toList
      finally file.close()
    }.toMap
    private val read = mutable.Map.empty[String, Option[Interface]]

    private def bytes(entry: String): Option[Array[Byte]] = owners.get(entry) match {
      case Some(jar) =>
        val file = new JarFile(jar)
        try Some(readAll(file.getInputStream(file.getEntry(entry))))
        finally file.close()
      case None => Option(ClassLoader.getSystemClassLoader.getResourceAsStream(entry)).map(readAll)
    }

    private def interface(name: String): Option[Interface] = read.getOrElseUpdate(
      name,
      bytes(name + ".class").map { b =>
        val reader = new ClassReader(b)
        val methods = mutable.Set.empty[String]
        reader.accept(
          new ClassVisitor(Opcodes.ASM9) {
            override def visitMethod(a: Int, n: String, d: String, s: String, e: Array[String]): MethodVisitor = {
              methods += n + d
              null
            }
          },
          ClassReader.SKIP_CODE
        )
        Interface(reader.getInterfaces.toSeq ++ Option(reader.getSuperName), methods.toSet)
      }
    )

    /** Whether `name` or one of its parents declares `method`; `None` when one cannot be read. */
    def declares(name: String, method: String): Option[Boolean] =
      if (name == "java/lang/Object") Some(false)
      else
        interface(name).flatMap { i =>
          if (i.methods(method)) Some(true)
          else
            i.parents.foldLeft(Option(false)) { (found, parent) =>
              found.flatMap(f => if (f) Some(true) else declares(parent, method))
            }
        }
  }

  private def readAll(in: InputStream): Array[Byte] =
    try {
      val out = new ByteArrayOutputStream()
      val buffer = new Array[Byte](1 << 16)
      var n = in.read(buffer)
      while (n >= 0) { out.write(buffer, 0, n); n = in.read(buffer) }
      out.toByteArray
    } finally in.close()
}
