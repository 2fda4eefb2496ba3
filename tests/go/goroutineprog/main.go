// Command goroutineprog is the target of go-heap's goroutine-profile test
// (tests/run-goroutine.sh).  It parks a few thousand goroutines in many
// ways (channel send and receive, select, time.Sleep, sync.Mutex,
// sync.Cond, sync.WaitGroup, a listener's Accept, a pipe read through the
// poller, a blocking read(2) in a system call, nested creators, inlined
// frames, pprof.Do labels, functions with arguments of many shapes for the
// debug=2 traceback's argument lists), turns the GC off, waits until every
// one of them is parked for good, writes its own goroutine profile into a
// directory and then stays still, so that go-heap can read the same profile
// from outside.
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
	mu       sync.Mutex       // held forever by main
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

// Argument shapes for -f traceback (printArgs): each goroutine parks in a
// non-inlined function whose arguments are printed from its frame.  Live
// arguments are used after the park (their spill slots are live); argsDead's
// are not (register arguments print "?" after their spill slot's stale word).
var (
	sinkI int64
	sinkS string
	sinkF float64
)

type pair struct{ a, b int }

type shapes struct {
	p  pair
	s  string
	f  float64
	c  complex128
	h  [2]int16
	e  struct{}
	ok bool
}

type deep5 struct {
	a struct {
		b struct{ c struct{ d struct{ e int } } }
	}
}

type recv struct{ x, y int32 }

//go:noinline
func argsInts(a int, b int8, c uint16, d int32, e uint64, f uintptr) {
	<-never
	sinkI = int64(a) + int64(b) + int64(c) + int64(d) + int64(e) + int64(f)
}

//go:noinline
func argsRefs(s string, b []byte, e error, p *pair, m map[int]int, c chan int) {
	<-never
	sinkS = s + string(b) + e.Error()
	sinkI = int64(p.a + len(m) + cap(c))
}

//go:noinline
func argsStruct(x shapes, y deep5) {
	<-never
	sinkS = x.s
	sinkF = x.f + real(x.c)
	sinkI = int64(x.p.a+x.p.b+int(x.h[0])+y.a.b.c.d.e) + int64(len(fmt.Sprint(x.ok, x.e)))
}

// More than TraceArgsMaxDepth levels of nesting: "{{{{{...}}}}}".
//
//go:noinline
func argsNested(y deep5, n int) {
	<-never
	sinkI = int64(y.a.b.c.d.e + n)
}

//go:noinline
func argsMany(a, b, c, d, e, f, g, h, i, j, k, l int) {
	<-never
	sinkI = int64(a + b + c + d + e + f + g + h + i + j + k + l)
}

//go:noinline
func argsFloats(a float32, b float64, c complex64, n int) {
	<-never
	sinkF = float64(a) + b + float64(real(c))
	sinkI = int64(n)
}

// x's spill slot lies past the 320-byte stack argument: "_".
//
//go:noinline
func argsFar(x int, big [40]int64) {
	<-never
	sinkI = int64(x) + big[39]
}

//go:noinline
func argsDead(a, b int, s string, q pair) {
	<-never
}

//go:noinline
func argsGeneric[T any](v T, n int) {
	<-never
	sinkS = fmt.Sprint(v)
	sinkI = int64(n)
}

//go:noinline
func (r recv) valueMethod(k int) {
	<-never
	sinkI = int64(r.x+r.y) + int64(k)
}

//go:noinline
func (r *recv) ptrMethod(s string) {
	<-never
	sinkI = int64(r.x)
	sinkS = s
}

// The park is inlined into argsInlinedPark: its frame prints "(...)", the
// physical frame's arguments are printed with the liveness at the call
// (1.19: at the inlined call's parent pc).
func inlPark(n int) int { return <-never + n }

//go:noinline
func argsInlinedPark(a int, s string) {
	v := inlPark(a)
	sinkI = int64(v + a)
	sinkS = s
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

// -inject (tests/run-goroutine.sh, arm64 cores): goroutines parked in a
// deferred call run by a nil-pointer panic, so their stacks hold the
// injected call runtime.sigpanic above the faulting frame (the unwinder's
// injected-call rules: no pc-1 for the faulting pc; on LR machines the
// LR slot the signal handler pushed).
var nilPair *pair

//go:noinline
func faultPark(x int) int {
	defer func() { <-never }()
	return nilPair.a + x
}

// -ancestors (tests/run-goroutine.sh, run with GODEBUG=tracebackancestors=N):
// goroutines whose creators' stacks the runtime saves in g.ancestors.  One
// is started 120 frames deep, so that its creator's saved PCs fill the
// array saveAncestors gives gcallers (tracebackInnerFrames, 50; 1.19's
// _TracebackMaxFrames, 100) and the traceback prints the elision line;
// two more by a pointer method called through a func value (the method's
// printed name in the ancestors' frames and "created by" lines).
//
//go:noinline
func deepSpawn(n int) {
	if n == 0 {
		started.Add(1)
		go func() { started.Done(); recvForever() }()
		return
	}
	deepSpawn(n - 1)
}

type spawner struct{ n int }

//go:noinline
func (s *spawner) run() {
	started.Add(s.n)
	for i := 0; i < s.n; i++ {
		go func() { started.Done(); recvForever() }()
	}
}

//go:noinline
func callIt(f func()) { f() }

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
	inject := flag.Bool("inject", false, "also park 2 goroutines in a deferred call of a nil-pointer panic")
	ancestors := flag.Bool("ancestors", false, "also start goroutines 120 frames deep and through a method value (GODEBUG=tracebackancestors)")
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
	spawn(2, func() { argsInts(0x11, -2, 0x3344, -5, 1<<63, 0xdeadbeef) })
	spawn(2, func() {
		argsRefs("hello", []byte("bytes"), os.ErrClosed, &pair{1, 2}, map[int]int{1: 1}, never)
	})
	spawn(2, func() {
		argsStruct(shapes{pair{3, 4}, "str", 1.5, complex(2, -3), [2]int16{-1, 7}, struct{}{}, true}, deep5{})
	})
	spawn(2, func() { var y deep5; y.a.b.c.d.e = 19; argsNested(y, 20) })
	spawn(2, func() { argsMany(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12) })
	spawn(2, func() { argsFloats(0.25, -1e300, complex(1, 2), 77) })
	spawn(2, func() {
		var big [40]int64
		for i := range big {
			big[i] = int64(i * i)
		}
		argsFar(0x42, big)
	})
	spawn(2, func() { argsDead(5, 6, "dead", pair{7, 8}) })
	spawn(2, func() { argsGeneric(pair{9, 10}, 11) })
	spawn(2, func() { argsGeneric("gen", 12) })
	spawn(2, func() { recv{13, 14}.valueMethod(15) })
	spawn(2, func() { (&recv{16, 17}).ptrMethod("ptr") })
	spawn(2, func() { argsInlinedPark(18, "inl") })
	labelled("request", "alpha", 100, recvForever)
	labelled("request", "beta \"quoted\"", 50, sleepLong)
	labelled("tenant", "t\u00e9st", 10, lockForever)
	// strconv.Quote's escapes of non-printable runes (IsPrint false: soft
	// hyphen, zero-width space, line separator, a C1 control, a tag
	// character), of bytes of invalid UTF-8 and of controls, next to
	// printable non-ASCII kept as is: runes whose IsPrint is the same in
	// every release's tables (Unicode 13 to 17).
	labelled("zw\u200b\u00ad", "sep\u2028tag\U000E0001 \U0001F600 \u00e9\u0085", 2, recvForever)
	labelled("bytes\xff\xe2\x82", "tab\there\x7f\x1b \\ \ufeff\ufffd", 2, sleepLong)
	// NUL bytes, in a value and in a key: %q writes \x00 and the proto
	// holds the whole strings.  The two "nul" values differ only after
	// their NUL, so a reader that cut them there would merge two groups.
	labelled("nul", "a\x00b", 2, recvForever)
	labelled("nul", "a\x00c", 2, recvForever)
	labelled("k\x00ey", "v\x00", 2, sleepLong)
	// Runes whose IsPrint is a fact of the release (its row's unicode in
	// src/lib/bin/rtlayout.c): U+20C0 SOM SIGN and U+1FAE0 (Unicode 14) are kept
	// from Go 1.21 (Unicode 15.0.0) and \u-escaped by 1.19; U+20C1 SAUDI
	// RIYAL SIGN and U+1FAE9 (16, 17) are kept by 1.27 (17.0.0) only.  The
	// quoting orders records too: the two "order" groups share stacks and
	// counts, so keysByCount sorts them by label text, where 1.19's escape
	// (a backslash, 0x5c) comes before "a" (0x61), 1.21+'s UTF-8 (0xe2)
	// after it.
	labelled("unicode", "som\u20c0 riyal\u20c1 \U0001FAE0\U0001FAE9", 2, recvForever)
	labelled("order", "\u20c0", 2, sleepLong)
	labelled("order", "a", 2, sleepLong)
	if *inject {
		spawn(2, func() { faultPark(21) })
	}
	if *ancestors {
		deepSpawn(120)
		callIt((&spawner{n: 2}).run)
	}
	started.Wait()
	// No GC from here on: a stack shrink (copystack) between the in-process
	// traceback and go-heap's read would move pointer arguments into stacks.
	debug.SetGCPercent(-1)
	runtime.GC()

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
