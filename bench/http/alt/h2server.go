// An independent delay server for bench/http/tls.sh: Go's net/http (standard library only), one
// port, TLS with a self-signed certificate made at start (h2 and http/1.1 by ALPN), or cleartext
// HTTP/1.1 plus HTTP/2 with prior knowledge (h2c) with -plain. Every request waits a delay drawn
// uniformly in [-lo, -hi] before it answers "Request".
//
// With -trace FILE it writes, every 10 ms while requests are open, a line "ms in_flight answered":
// the concurrency the server saw (bench/queue/http-worker.sh reads it).
//
//	go run bench/http/alt/h2server.go -port 18443 -lo 0ms -hi 200ms -pem /tmp/alt.pem
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"flag"
	"fmt"
	"log"
	"math/big"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"
)

func main() {
	port := flag.Int("port", 18443, "port on 127.0.0.1")
	lo := flag.Duration("lo", 0, "least delay")
	hi := flag.Duration("hi", 0, "most delay")
	plain := flag.Bool("plain", false, "cleartext: HTTP/1.1 and h2c (prior knowledge), no TLS")
	pemFile := flag.String("pem", "", "with TLS: write the self-signed certificate here (PEM)")
	traceFile := flag.String("trace", "", "write 'ms in_flight answered' every 10 ms while busy")
	flag.Parse()

	var open, answered atomic.Int64
	if *traceFile != "" {
		go trace(*traceFile, &open, &answered)
	}
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		open.Add(1)
		defer func() { open.Add(-1); answered.Add(1) }()
		if *hi > 0 {
			time.Sleep(*lo + time.Duration(mrand.Int64N(int64(*hi-*lo)+1)))
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "Request")
	})
	server := &http.Server{Addr: fmt.Sprintf("127.0.0.1:%d", *port), Handler: handler}
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	if *plain {
		protocols.SetUnencryptedHTTP2(true)
		server.Protocols = protocols
		log.Fatal(server.ListenAndServe())
	}
	protocols.SetHTTP2(true)
	server.Protocols = protocols
	cert := selfSigned(*pemFile)
	server.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	log.Fatal(server.ListenAndServeTLS("", ""))
}

func selfSigned(pemFile string) tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	template := x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "localhost"},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, &template, &template, &key.PublicKey, key)
	if err != nil {
		log.Fatal(err)
	}
	if pemFile != "" {
		if err := os.WriteFile(pemFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// trace appends "ms in_flight answered" every 10 ms (ms since the server started) whenever a
// request is open or the answered count moved since the last line.
func trace(file string, open, answered *atomic.Int64) {
	f, err := os.Create(file)
	if err != nil {
		log.Fatal(err)
	}
	start := time.Now()
	last := int64(-1)
	for range time.Tick(10 * time.Millisecond) {
		o, a := open.Load(), answered.Load()
		if o > 0 || a != last {
			fmt.Fprintf(f, "%d %d %d\n", time.Since(start).Milliseconds(), o, a)
			last = a
		}
	}
}
