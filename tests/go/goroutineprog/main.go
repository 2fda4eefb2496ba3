// Command goroutineprog is the target of go-heap's goroutine-profile test
// (tests/run-goroutine.sh).  It parks a few thousand goroutines in many
// ways (channel send and receive, select, time.Sleep, sync.Mutex,
// sync.Cond, sync.WaitGroup, a listener's Accept, a pipe read through the
// poller, a blocking read(2) in a system call, nested creators, inlined
// frames, pprof.Do labels), waits until every one of them is parked for
// good, writes its own goroutine profile into a directory and then stays
// still, so that go-heap can read the same profile from outside.
//
// Usage: goroutineprog -out DIR
//
// Files written into DIR:
//
//	goroutine.txt     pprof.Lookup("goroutine").WriteTo(f, 1)
//	goroutine.2.txt   pprof.Lookup("goroutine").WriteTo(f, 2)
//	goroutine.pb.gz   pprof.Lookup("goroutine").WriteTo(f, 0)
//
// The main goroutine writes the profiles (its record there holds
// main.writeProfiles) and afterwards parks in main.idleForever: the
// comparator drops that one goroutine from both sides.  Every other
// goroutine is parked before the write (the profile is written until two
// consecutive debug=1 texts agree) and never wakes up.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

var (
	never    = make(chan int) // receivers only
	neverS   = make(chan int) // receivers only
	neverW   = make(chan int) // senders only
	mu       sync.Mutex        // held forever by main
	condMu   sync.Mutex
	cond     = sync.NewCond(&condMu)
	wgNever  sync.WaitGroup
	started  sync.WaitGroup
	listener net.Listener
)

//go:noinline
func recvForever() { <-never }

//go:noinline
func sendForever(v int) { neverW <- v }

//go:noinline
func selectForever(a, b chan int) {
	select {
	case <-a:
	case b <- 1:
	}
}

//go:noinline
func sleepLong() { time.Sleep(1000 * time.Hour) }

//go:noinline
func lockForever() { mu.Lock() }

//go:noinline
func condWaitForever() {
	condMu.Lock()
	for {
		cond.Wait()
	}
}

//go:noinline
func wgWaitForever() { wgNever.Wait() }

//go:noinline
func acceptForever() { listener.Accept() }

// Inlined helpers: the blocking call sits in inlined frames.
func inlinedRecv(c chan int) int { return <-c }

func inlinedTwice(c chan int) int { return inlinedRecv(c) + 1 }

//go:noinline
func viaInlined() { _ = inlinedTwice(neverS) }

// Deep recursion: stacks longer than 32 frames (the <= 1.22 limit).
//
//go:noinline
func deep(n int) {
	if n == 0 {
		recvForever()
		return
	}
	deep(n - 1)
}

// Nested creators: "created by" differs from the parked frames.
//
//go:noinline
func creator(depth int) {
	started.Add(1)
	if depth == 0 {
		go func() { started.Done(); recvForever() }()
		return
	}
	go func() { creator(depth - 1); started.Done(); select {} }()
}

//go:noinline
func pipeReadForever(f *os.File) {
	var b [1]byte
	f.Read(b[:])
}

//go:noinline
func syscallReadForever(fd int) {
	var b [1]byte
	syscall.Read(fd, b[:])
}

func spawn(n int, f func()) {
	for i := 0; i < n; i++ {
		started.Add(1)
		go func() { started.Done(); f() }()
	}
}

func labelled(key, val string, n int, f func()) {
	started.Add(1)
	go func() {
		pprof.Do(context.Background(), pprof.Labels(key, val, "kind", "worker"), func(context.Context) {
			spawn(n, f) // children inherit the labels
			started.Done()
			f()
		})
	}()
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
	f, err := os.Create(filepath.Join(dir, "goroutine.pb.gz"))
	if err != nil {
		return "", err
	}
	if err := pprof.Lookup("goroutine").WriteTo(f, 0); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "goroutine.2.txt"), b2.Bytes(), 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "goroutine.txt"), b1.Bytes(), 0o644); err != nil {
		return "", err
	}
	return b1.String(), nil
}

// withoutWriter drops the writer's own record (its stack changes between writes).
func withoutWriter(s string) string {
	recs := strings.Split(s, "\n\n")
	var keep []string
	for _, r := range recs {
		if !strings.Contains(r, "main.writeProfiles") {
			keep = append(keep, r)
		}
	}
	return strings.Join(keep, "\n\n")
}

//go:noinline
func idleForever() { select {} }

// -spin (tests/run-goroutine.sh, running goroutines in kernel cores): after
// the profiles are written, one goroutine spins in main.spinForever on a
// locked thread (run with GODEBUG=asyncpreemptoff=1 so that the crash
// handler's freezetheworld cannot preempt it: it stays _Grunning); the GC
// is turned off first.
var spinning int32
var spinSink uint64

//go:noinline
func spinForever() {
	runtime.LockOSThread()
	atomic.StoreInt32(&spinning, 1)
	fmt.Println("SPINNING")
	x := uint64(1)
	for {
		x = x*6364136223846793005 + 1442695040888963407
		if x == 0 {
			spinSink++
		}
	}
}

func main() {
	out := flag.String("out", "", "directory for the profiles")
	spin := flag.Bool("spin", false, "after the profiles, spin in main.spinForever")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "usage: goroutineprog -out DIR")
		os.Exit(2)
	}
	fmt.Printf("goroutineprog: pid %d %s\n", os.Getpid(), runtime.Version())
	mu.Lock()
	wgNever.Add(1)
	var err error
	listener, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer pw.Close()
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}

	spawn(1000, recvForever)
	spawn(300, func() { sendForever(1) })
	spawn(200, func() { selectForever(neverS, neverW) })
	spawn(200, sleepLong)
	spawn(150, lockForever)
	spawn(150, condWaitForever)
	spawn(100, wgWaitForever)
	spawn(3, acceptForever)
	spawn(2, func() { pipeReadForever(pr) })
	spawn(1, func() { syscallReadForever(fds[0]) })
	spawn(100, viaInlined)
	spawn(20, func() { deep(40) })
	spawn(10, func() { deep(5) })
	creator(4)
	labelled("request", "alpha", 100, recvForever)
	labelled("request", "beta \"quoted\"", 50, sleepLong)
	labelled("tenant", "t\u00e9st", 10, lockForever)
	started.Wait()

	// Settle: every goroutine parked where it stays (two equal writes).
	var prev string
	for i := 0; ; i++ {
		time.Sleep(50 * time.Millisecond)
		s, err := writeProfiles(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if withoutWriter(s) == withoutWriter(prev) {
			break
		}
		if i > 100 {
			fmt.Fprintln(os.Stderr, "goroutine profile did not settle")
			os.Exit(1)
		}
		prev = s
	}
	if *spin {
		// No GC from now on: its stop-the-world would wait for the
		// spinner forever (no preemption point, async preemption off).
		// READY comes first and the spinner says SPINNING itself, so
		// that nothing here waits on a scheduler the spinner may stall.
		debug.SetGCPercent(-1)
		runtime.GC()
		fmt.Println("READY")
		go spinForever()
		idleForever()
	}
	fmt.Println("READY")
	idleForever()
}
