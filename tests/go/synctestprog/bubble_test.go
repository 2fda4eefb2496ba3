//go:build go1.25 || goexperiment.synctest

// Package synctestprog is the target of go-heap's synctest check
// (tests/run-goroutine.sh, synctest_checks): a test binary (go test -c;
// go1.24 needs GOEXPERIMENT=synctest) whose TestBubbles parks goroutines
// inside two testing/synctest bubbles, durably blocked (a bubbled channel's
// receive and send, select, sync.WaitGroup.Wait with Add in the bubble,
// time.Sleep, sync.Cond.Wait, select {}, nil channels, an iter.Pull
// coroutine) and not (sync.Mutex.Lock, a channel made outside the bubble,
// a WaitGroup whose Add was outside, a pipe read through the poller), and
// some outside any bubble, with pprof labels holding NUL bytes, invalid
// UTF-8 and runes to quote (printed in the traceback headers when run with
// GODEBUG=tracebacklabels=1, 1.26+).  It writes its own goroutine profile
// (debug=1 and debug=2) into -out DIR, prints READY and stays still.
//
// Usage: GODEBUG=asynctimerchan=0 synctestprog.test -test.run=TestBubbles
// -test.timeout=0 -out DIR (built in GOPATH mode, the binary's GODEBUG
// defaults are go1.20's, whose asynctimerchan=1 synctest refuses).
//
// The test goroutine, outside every bubble, writes the profiles (its
// traceback holds writeProfiles) and then parks in idleForever: the
// comparator drops that one goroutine from both sides.  Every bubble keeps
// one goroutine not durably blocked (its f, parked on a channel made
// outside), so the bubble never goes idle: its fake clock stands still and
// its sleepers sleep on.
package synctestprog

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var out = flag.String("out", "", "directory for goroutine.txt and goroutine.2.txt")

var (
	outside   = make(chan int) // made outside every bubble: receivers only
	idle      = make(chan int) // the writer's, never sent to
	mu        sync.Mutex       // held forever by the test goroutine
	wgOutside sync.WaitGroup   // Add outside the bubbles: not durable inside
	parked    atomic.Int64     // goroutines about to block
	pipes     []*os.File       // both ends of every pipe (never closed)
)

//go:noinline
func recvDurable(c chan int) { parked.Add(1); <-c }

//go:noinline
func sendDurable(c chan int) { parked.Add(1); c <- 1 }

//go:noinline
func selectDurable(a, b chan int) {
	parked.Add(1)
	select {
	case <-a:
	case b <- 1:
	}
}

//go:noinline
func wgWait(wg *sync.WaitGroup) { parked.Add(1); wg.Wait() }

//go:noinline
func sleepDurable() { parked.Add(1); time.Sleep(1000 * time.Hour) }

//go:noinline
func condWait(c *sync.Cond) {
	c.L.Lock()
	parked.Add(1)
	for {
		c.Wait()
	}
}

//go:noinline
func selectNone() { parked.Add(1); select {} }

//go:noinline
func recvNil() { var c chan int; parked.Add(1); <-c }

//go:noinline
func sendNil() { var c chan int; parked.Add(1); c <- 1 }

//go:noinline
func lockForever() { parked.Add(1); mu.Lock() }

//go:noinline
func recvOutside() { parked.Add(1); <-outside }

//go:noinline
func pipeRead(pr *os.File) {
	var b [1]byte
	parked.Add(1)
	pr.Read(b[:])
}

// pullOnce starts an iter.Pull coroutine and never resumes it: its
// goroutine stays parked in "coroutine" (runtime.corostart: a user
// goroutine), the caller goes on.
//
//go:noinline
func pullOnce(keep *[]func()) {
	next, stop := iter.Pull(func(yield func(int) bool) {
		for i := 0; yield(i); i++ {
		}
	})
	*keep = append(*keep, func() { next() }, stop)
}

var keep []func()

// bubbleBody is f of one bubble: it starts the bubble's goroutines,
// reports how many will park, and parks itself on a channel made outside
// (not durable: the bubble stays active, its fake time still).
func bubbleBody(started chan<- int64, pr *os.File) {
	var (
		ch1, ch2, chA, chB = make(chan int), make(chan int), make(chan int), make(chan int)
		wg                 sync.WaitGroup
		cmu                sync.Mutex
		cond               = sync.NewCond(&cmu)
		n                  int64
	)
	wg.Add(1) // in the bubble: Wait is durable (1.25+)
	start := func(f func()) { n++; go f() }
	start(func() { recvDurable(ch1) })
	start(func() { sendDurable(ch2) })
	start(func() { selectDurable(chA, chB) })
	start(func() { wgWait(&wg) })
	start(sleepDurable)
	start(func() { condWait(cond) })
	start(selectNone)
	start(recvNil)
	start(sendNil)
	start(lockForever)
	start(recvOutside)
	start(func() { wgWait(&wgOutside) })
	start(func() { pipeRead(pr) })
	pprof.Do(context.Background(), pprof.Labels("in\x00bubble", "yes\x00", "plain", "ok_1.2/x"), func(context.Context) {
		start(func() { recvDurable(ch1) })
		start(lockForever)
	})
	pullOnce(&keep)
	started <- n
	recvOutside()
}

//go:noinline
func writeProfiles(dir string) (string, error) {
	var b1, b2 bytes.Buffer
	if err := pprof.Lookup("goroutine").WriteTo(&b1, 1); err != nil {
		return "", err
	}
	if err := pprof.Lookup("goroutine").WriteTo(&b2, 2); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "goroutine.txt"), b1.Bytes(), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "goroutine.2.txt"), b2.Bytes(), 0o644); err != nil {
		return "", err
	}
	return b2.String(), nil
}

//go:noinline
func idleForever() { <-idle }

// withoutWriter drops the writer's own traceback (it changes between writes).
func withoutWriter(s string) string {
	var keep []string
	for _, b := range strings.Split(s, "\n\n") {
		if !strings.Contains(b, "writeProfiles") {
			keep = append(keep, b)
		}
	}
	return strings.Join(keep, "\n\n")
}

func TestBubbles(t *testing.T) {
	if *out == "" {
		t.Skip("no -out DIR")
	}
	mu.Lock()
	wgOutside.Add(1)
	var want int64
	started := make(chan int64)
	// Outside every bubble, with labels to quote: NUL bytes in a key and a
	// value, invalid UTF-8, a quote and a newline, runes above ASCII, an
	// empty value, one that needs no quoting (1.27 prints it as is).
	for i := 0; i < 2; i++ {
		want++
		go pprof.Do(context.Background(), pprof.Labels("k\x00ey", "v\x00al", "bad", "\xff\xfe", "say", "\"hi\"\n",
			"uni", "\u00e9\u200b\U0001F600", "empty", "", "plain", "value_1.2/x"), func(context.Context) {
			recvOutside()
		})
	}
	for i := 0; i < 2; i++ {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		pipes = append(pipes, pr, pw)
		go inBubble(t, func() { bubbleBody(started, pr) })
		want += <-started
	}
	for parked.Load() < want {
		time.Sleep(time.Millisecond)
	}
	debug.SetGCPercent(-1) // no stack moves between the two reads
	var prev string
	for i := 0; ; i++ {
		time.Sleep(50 * time.Millisecond)
		s, err := writeProfiles(*out)
		if err != nil {
			t.Fatal(err)
		}
		if withoutWriter(s) == withoutWriter(prev) {
			break
		}
		if i > 100 {
			t.Fatal("goroutine profile did not settle")
		}
		prev = s
	}
	fmt.Println("READY")
	idleForever()
}
