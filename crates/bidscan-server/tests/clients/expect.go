// One POST with Go's net/http and `Expect: 100-continue`, as bidscan's client tests run it (tests/clients.rs).
//
// Usage: go run expect.go URL BODY_FILE [CA_PEM]
// With CA_PEM the URL is https:// and HTTP/2 is negotiated by ALPN (Go's bundled h2); otherwise HTTP/1.1.
// ExpectContinueTimeout is 5 s: a server that never answers 100 makes the request wait that long.
// Prints one JSON line: {"status", "proto", "got100", "lines", "seconds"} or {"error"}.
package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"time"
)

func main() {
	url, path := os.Args[1], os.Args[2]
	body, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	transport := &http.Transport{ExpectContinueTimeout: 5 * time.Second}
	if len(os.Args) > 3 {
		pem, err := os.ReadFile(os.Args[3])
		if err != nil {
			panic(err)
		}
		roots := x509.NewCertPool()
		roots.AppendCertsFromPEM(pem)
		transport.TLSClientConfig = &tls.Config{RootCAs: roots}
		transport.ForceAttemptHTTP2 = true
	}
	got100 := false
	trace := &httptrace.ClientTrace{Got100Continue: func() { got100 = true }}
	req, err := http.NewRequest("POST", url, bytes.NewReader(body))
	if err != nil {
		panic(err)
	}
	req.Header.Set("Expect", "100-continue")
	req.Header.Set("Content-Type", "application/x-ndjson")
	req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
	began := time.Now()
	res, err := (&http.Client{Transport: transport, Timeout: 30 * time.Second}).Do(req)
	out := map[string]any{}
	if err != nil {
		out["error"] = err.Error()
	} else {
		answer, _ := io.ReadAll(res.Body)
		res.Body.Close()
		out["status"] = res.StatusCode
		out["proto"] = res.Proto
		out["lines"] = bytes.Count(answer, []byte("\n"))
	}
	out["got100"] = got100
	out["seconds"] = time.Since(began).Seconds()
	line, _ := json.Marshal(out)
	fmt.Println(string(line))
}
