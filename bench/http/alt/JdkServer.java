// The JDK's com.sun.net.httpserver on virtual threads as the delay server, for ADR 0003.
// usage: java JdkServer.java PORT MAX_DELAY_MS   (GET /{id} answers "Request {id}" after uniform(0, max) ms)
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;

public class JdkServer {
  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    long max = Long.parseLong(args[1]);
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 65535);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.createContext("/", exchange -> {
      String path = exchange.getRequestURI().getPath();
      byte[] body = ("Request " + path.substring(path.lastIndexOf('/') + 1)).getBytes(StandardCharsets.UTF_8);
      try { if (max > 0) Thread.sleep(ThreadLocalRandom.current().nextLong(max)); } catch (InterruptedException e) { return; }
      exchange.sendResponseHeaders(200, body.length);
      try (var out = exchange.getResponseBody()) { out.write(body); }
    });
    server.start();
  }
}
