// The JDK's java.net.http.HttpClient as a load client, for ADR 0003 (the HTTP stack choice).
// usage: java JdkClient.java URL-PREFIX N C   -> requests URL-PREFIX0 .. URL-PREFIX{N-1}, C in flight
import java.net.URI;
import java.net.http.*;
import java.time.Duration;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicLong;

public class JdkClient {
  public static void main(String[] args) throws Exception {
    String prefix = args[0];
    long n = Long.parseLong(args[1]);
    int c = Integer.parseInt(args[2]);
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(30)).build();
    Semaphore permits = new Semaphore(c);
    AtomicLong ok = new AtomicLong(), errors = new AtomicLong();
    CountDownLatch done = new CountDownLatch(1);
    AtomicLong finished = new AtomicLong();
    long start = System.nanoTime();
    for (long i = 0; i < n; i++) {
      permits.acquire();
      HttpRequest request = HttpRequest.newBuilder(URI.create(prefix + i)).timeout(Duration.ofSeconds(60)).build();
      client.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((r, e) -> {
        if (e == null && r.statusCode() == 200) ok.incrementAndGet(); else errors.incrementAndGet();
        permits.release();
        if (finished.incrementAndGet() == n) done.countDown();
      });
    }
    done.await();
    double secs = (System.nanoTime() - start) / 1e9;
    System.out.printf("{\"finished\": %d, \"ok\": %d, \"errors\": %d, \"elapsed_s\": %.3f, \"rps\": %.1f}%n",
        n, ok.get(), errors.get(), secs, n / secs);
    System.exit(0);
  }
}
