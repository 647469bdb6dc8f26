import java.io.{ByteArrayOutputStream, File, InputStream}
import java.util.jar.{JarEntry, JarFile, JarOutputStream}

import scala.collection.mutable
import scala.jdk.CollectionConverters.*

import org.objectweb.asm.{
  ClassReader,
  ClassVisitor,
  ClassWriter,
  Handle,
  MethodVisitor,
  Opcodes,
  Type
}

/** The staged command's jars with their lambdas made archivable by a JDK 25 AOT cache (build.sbt,
  * `cli`; docs/adr/0013-apply-sql-speed.md, round 7).
  *
  * Scala compiles every lambda to an `invokedynamic` on `LambdaMetafactory.altMetafactory`, asking
  * for a serializable class (and often for bridge methods). A JDK 25 AOT cache keeps the classes of
  * lambdas made by `LambdaMetafactory.metafactory` only, so each Scala lambda's class is spun again
  * at every start: ~1 000 of them for one `weir apply-sql`, about half of its start-up. This
  * rewrites a call site to `metafactory` when nothing is lost but serializability, which the
  * command never uses (no Java serialization anywhere in weir):
  *   - no marker interfaces;
  *   - every bridge it asks for is a method that no interface of the lambda's declares (Scala 3
  *     asks for a bridge of the instantiated signature, `apply(FiniteDuration)IO` on a `Function1`,
  *     which no caller can name); a bridge that an interface declares is kept, with the whole call
  *     site;
  *   - the lambda's interface and its parents can be read (from the jars, or the build's JDK).
  *
  * Signed jars are copied as they are (a change would break their signature). The library's
  * published jars are not touched: only the staged command's copies.
  */
object LambdaLinking:
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

  /** What one run did: call sites on `altMetafactory` seen, and those rewritten. */
  final case class Counts(seen: Int, rewritten: Int):
    def +(other: Counts): Counts = Counts(seen + other.seen, rewritten + other.rewritten)

  /** An interface as the check needs it: its parents and the methods it declares (name +
    * descriptor).
    */
  private final case class Interface(parents: Seq[String], methods: Set[String])

  /** Reads interfaces from the jars, then from the build's JDK; `None` when a type cannot be read.
    */
  private final class Interfaces(jars: Seq[File]):
    private val owners: Map[String, File] =
      jars.flatMap(jar => entries(jar).map(_ -> jar)).toMap
    private val cache = mutable.Map.empty[String, Option[Interface]]

    private def entries(jar: File): Seq[String] =
      val file = new JarFile(jar)
      try file.entries.asScala.map(_.getName).filter(_.endsWith(".class")).toList
      finally file.close()

    private def bytes(name: String): Option[Array[Byte]] =
      val entry = name + ".class"
      owners.get(entry) match
        case Some(jar) =>
          val file = new JarFile(jar)
          try Some(readAll(file.getInputStream(file.getEntry(entry))))
          finally file.close()
        case None =>
          Option(ClassLoader.getSystemClassLoader.getResourceAsStream(entry)).map(readAll)

    def apply(name: String): Option[Interface] = cache.getOrElseUpdate(
      name,
      bytes(name).map { b =>
        val reader = new ClassReader(b)
        val methods = mutable.Set.empty[String]
        reader.accept(
          new ClassVisitor(Opcodes.ASM9):
            override def visitMethod(a: Int, n: String, d: String, s: String, e: Array[String])
                : MethodVisitor =
              methods += n + d
              null
          ,
          ClassReader.SKIP_CODE
        )
        Interface(reader.getInterfaces.toSeq ++ Option(reader.getSuperName), methods.toSet)
      }
    )

    /** Whether `name` or any of its parents declares `method`; `None` when one cannot be read. */
    def declares(name: String, method: String): Option[Boolean] =
      if name == "java/lang/Object" then Some(false)
      else
        apply(name).flatMap { interface =>
          if interface.methods(method) then Some(true)
          else
            interface.parents.foldLeft(Option(false)) { (found, parent) =>
              found.flatMap(f => if f then Some(true) else declares(parent, method))
            }
        }

  /** Writes each jar's rewritten copy into `dir` (unchanged jars and signed ones copied as they
    * are), reusing a copy newer than its jar; returns each jar's copy and the counts.
    */
  def rewrite(jars: Seq[File], dir: File): (Map[File, File], Counts) =
    val interfaces = new Interfaces(jars)
    dir.mkdirs()
    jars.foldLeft((Map.empty[File, File], Counts(0, 0))) { case ((copies, total), jar) =>
      val out = new File(dir, jar.getName)
      val counts =
        if out.exists && out.lastModified >= jar.lastModified then Counts(0, 0)
        else rewriteJar(jar, out, interfaces)
      (copies + (jar -> out), total + counts)
    }

  private def rewriteJar(jar: File, out: File, interfaces: Interfaces): Counts =
    val in = new JarFile(jar)
    val partial = new File(out.getPath + ".partial")
    var counts = Counts(0, 0)
    try
      val signed = in.entries.asScala.exists(e =>
        e.getName.startsWith("META-INF/") && e.getName.endsWith(".SF")
      )
      val target = new JarOutputStream(new java.io.FileOutputStream(partial))
      try
        in.entries.asScala.foreach { entry =>
          val original = readAll(in.getInputStream(entry))
          val bytes =
            if signed || !entry.getName.endsWith(".class") || entry.getName.endsWith(
                "module-info.class"
              )
            then original
            else {
              val (rewritten, c) = rewriteClass(original, interfaces)
              counts = counts + c
              rewritten
            }
          val copy = new JarEntry(entry.getName)
          copy.setTime(entry.getTime)
          target.putNextEntry(copy)
          target.write(bytes)
          target.closeEntry()
        }
      finally target.close()
    finally in.close()
    java.nio.file.Files
      .move(partial.toPath, out.toPath, java.nio.file.StandardCopyOption.REPLACE_EXISTING)
    counts

  /** The class with its convertible call sites on `metafactory`: the same code otherwise, byte for
    * byte, with its stack map frames (ASM copies a method it is given a reader for and computes
    * nothing).
    */
  private def rewriteClass(bytes: Array[Byte], interfaces: Interfaces): (Array[Byte], Counts) =
    val reader = new ClassReader(bytes)
    val writer = new ClassWriter(reader, 0)
    var counts = Counts(0, 0)
    reader.accept(
      new ClassVisitor(Opcodes.ASM9, writer):
        override def visitMethod(
            a: Int,
            n: String,
            d: String,
            s: String,
            e: Array[String]
        ): MethodVisitor =
          new MethodVisitor(Opcodes.ASM9, super.visitMethod(a, n, d, s, e)):
            override def visitInvokeDynamicInsn(
                name: String,
                desc: String,
                bsm: Handle,
                args: Object*
            ): Unit =
              if bsm.getOwner == Lmf && bsm.getName == "altMetafactory" then
                val plain = convertible(name, desc, args, interfaces)
                counts = counts + Counts(1, if plain then 1 else 0)
                if plain then super.visitInvokeDynamicInsn(name, desc, Metafactory, args.take(3)*)
                else super.visitInvokeDynamicInsn(name, desc, bsm, args*)
              else super.visitInvokeDynamicInsn(name, desc, bsm, args*)
      ,
      0
    )
    if counts.rewritten == 0 then (bytes, counts) else (writer.toByteArray, counts)

  /** altMetafactory's arguments: three as metafactory's, the flags, then (with FLAG_MARKERS) a
    * count and the marker interfaces, then (with FLAG_BRIDGES) a count and the bridges' method
    * types.
    */
  private def convertible(
      name: String,
      desc: String,
      args: Seq[Object],
      interfaces: Interfaces
  ): Boolean =
    val flags = args(3).asInstanceOf[Integer].intValue
    val afterFlags = args.drop(4)
    val (markers, rest) =
      if (flags & FlagMarkers) == 0 then (0, afterFlags)
      else
        (
          afterFlags.head.asInstanceOf[Integer].intValue,
          afterFlags.drop(1 + afterFlags.head.asInstanceOf[Integer].intValue)
        )
    val bridges =
      if (flags & FlagBridges) == 0 then Nil
      else
        rest
          .slice(1, 1 + rest.head.asInstanceOf[Integer].intValue)
          .map(_.asInstanceOf[Type].getDescriptor)
    val interface = Type.getReturnType(desc).getInternalName
    markers == 0 && bridges.forall(bridge =>
      interfaces.declares(interface, name + bridge).contains(false)
    )

  private def readAll(in: InputStream): Array[Byte] =
    try
      val out = new ByteArrayOutputStream()
      val buffer = new Array[Byte](1 << 16)
      var n = in.read(buffer)
      while n >= 0 do
        out.write(buffer, 0, n); n = in.read(buffer)
      out.toByteArray
    finally in.close()
