// Command leakprog is a small net/http service with a planted leak, the
// target of tests/run-retained-leak.sh (go-heap -p retained's "who holds
// the heap" on a service: the global that leaks must be the root of the
// biggest retained path, with the bytes it retains).
//
// It listens on 127.0.0.1 (a free port) and serves /work?id=N: each
// request computes a reply and, the planted leak, stores a *Session (with
// its 512-byte payload and a string key) in the global map main.sessions,
// which nothing ever deletes from.  The process's own client sends the
// requests over HTTP/1.1 keep-alive connections.  Memory held elsewhere,
// of comparable but smaller size, so that a wrong attribution fails:
//
//   - main.catalog, a global slice of nCatalog *Item (each with a
//     256-byte description): about 60% of the leak's bytes;
//   - a goroutine (main.pool) whose frame alone holds nPool 1 KiB buffers:
//     about 40% of the leak's bytes.
//
// Usage: leakprog DUMPFILE
//
// After nRequests requests it stops its client, closes the idle
// connections, runs runtime.GC twice, writes its own debug.WriteHeapDump
// (the oracle) and prints "PORT <port>", "SESSIONS <n>", "READY".  The
// map then does not change until SIGUSR1, after which the client sends
// requests again without end, one every 100 us or so (the map keeps
// growing), and prints GROWING.
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"syscall"
	"time"
)

type Session struct {
	id      uint64
	user    string
	payload []byte
	prev    *Session
}

type Item struct {
	sku  uint64
	desc []byte
}

const (
	nRequests  = 2000
	perRequest = 10 // sessions leaked per request
	nCatalog   = 12000
	nPool      = 3000
)

var (
	mu       sync.Mutex
	sessions = make(map[string]*Session)
	last     *Session
	catalog  []*Item
	poolUp   = make(chan struct{})
	quit     = make(chan struct{})
)

func work(w http.ResponseWriter, r *http.Request) {
	id, _ := strconv.ParseUint(r.URL.Query().Get("id"), 10, 64)
	mu.Lock()
	for k := uint64(0); k < perRequest; k++ {
		n := id*perRequest + k
		s := &Session{id: n, user: "user-" + strconv.FormatUint(n, 10), payload: make([]byte, 512)}
		s.payload[0] = byte(n)
		sessions[s.user] = s // the leak: never deleted
		last = s
	}
	mu.Unlock()
	io.WriteString(w, "ok "+strconv.FormatUint(id, 10)+"\n")
}

// pool keeps its buffers on its own stack only.
//
//go:noinline
func pool() {
	bufs := make([][]byte, nPool)
	for i := range bufs {
		bufs[i] = make([]byte, 1024)
	}
	poolUp <- struct{}{}
	<-quit
	runtime.KeepAlive(bufs)
}

func request(c *http.Client, base string, id uint64) {
	resp, err := c.Get(base + "/work?id=" + strconv.FormatUint(id, 10))
	if err != nil {
		fmt.Fprintln(os.Stderr, "leakprog:", err)
		os.Exit(1)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

func main() {
	if len(os.Args) != 2 {
		os.Stderr.WriteString("usage: leakprog DUMPFILE\n")
		os.Exit(2)
	}
	for i := range make([]struct{}, nCatalog) {
		catalog = append(catalog, &Item{sku: uint64(i), desc: make([]byte, 256)})
	}
	go pool()
	<-poolUp
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "leakprog:", err)
		os.Exit(1)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/work", work)
	go http.Serve(ln, mux)
	base := "http://" + ln.Addr().String()
	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	c := &http.Client{Transport: tr}
	var id uint64
	for ; id < nRequests; id++ {
		request(c, base, id)
	}
	tr.CloseIdleConnections()
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	runtime.GC()
	runtime.GC()
	fd, err := syscall.Open(os.Args[1], syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "leakprog:", err)
		os.Exit(1)
	}
	debug.WriteHeapDump(uintptr(fd))
	syscall.Close(fd)
	mu.Lock()
	n := len(sessions)
	mu.Unlock()
	fmt.Printf("PORT %d\nSESSIONS %d\nREADY\n", ln.Addr().(*net.TCPAddr).Port, n)
	<-usr1
	fmt.Printf("GROWING\n")
	for ; ; id++ {
		request(c, base, id)
		time.Sleep(100 * time.Microsecond)
	}
}
