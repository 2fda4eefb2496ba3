// Command forceprog is the target of go-heap's force-mode test
// (tests/run-force.sh) and benchmark (bench/force-bench.sh).
//
// It must never reference runtime.MemProfile, runtime/pprof or
// net/http/pprof: then the linker sets runtime.disableMemoryProfiling and
// schedinit (or, in 1.19, runtime's init) leaves runtime.MemProfileRate at
// 0, which is the situation go-heap --force exists for.  Reading the
// variable, as this program does for its status line, is allowed: only the
// profile reader's reachability matters (cmd/link/internal/ld/lib.go,
// linksetup: disableMemoryProfiling).
//
// Usage: forceprog [-threads N] [-workers N] [-pause D] [-spin] [-gap] [-gapfile F]
//
//	-threads N   also start N goroutines locked to their own OS thread
//	             (runtime.LockOSThread), parked on a channel: N more threads
//	-workers N   goroutines calling main.allocateSteadily (default 1)
//	-pause D     pause between two 64 KiB batches of a worker (default 1ms;
//	             0 = allocate flat out)
//	-spin        also run a goroutine locked to its thread that spins in
//	             main.spinInner, called by main.spinOuter, called by
//	             main.spinTop (it burns one CPU): a function the stack walk
//	             must find on a running thread, whatever the thread is doing
//	-gap         run the scheduling-gap monitor: a goroutine locked to its
//	             thread reads the clock in a tight loop and keeps the longest
//	             interval between two reads (it burns one CPU)
//	-gapfile F   with -gap, write "maxgap_us N" to F on every SIGUSR1, then one
//	             "gap START END" line (CLOCK_MONOTONIC nanoseconds) per gap of
//	             more than 50us since the last reset, so that a caller can
//	             tell which gap overlapped its own interval
//
// Signals: SIGUSR1 prints "STATUS rate=R maxgap_us=G allocs=A threads=T"
// (and writes the gap file); SIGUSR2 resets the longest gap to 0 (so that a
// caller can measure a window); SIGTERM and SIGINT stop the workers and
// print "EXIT ok allocs=A rate=R maxgap_us=G", exit status 0.
//
// At start it prints "forceprog: pid N goVERSION", then "READY N" once every
// thread exists.
package main

import (
	"flag"
	"fmt"
	"io/ioutil"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

var (
	allocs  int64 // batches allocated, all workers
	maxGap  int64 // longest clock gap seen by the monitor, ns
	stopped int32 // set on SIGTERM: workers and monitor return
	sink    [64][]byte
	sinkMu  sync.Mutex

	// Gaps over 50us, as CLOCK_MONOTONIC intervals (reset by SIGUSR2).
	gapMu   sync.Mutex
	gapList [][2]int64
)

// monoBase pairs a CLOCK_MONOTONIC reading with a time.Time: the runtime's
// monotonic clock is CLOCK_MONOTONIC (runtime.nanotime), so base +
// t.Sub(t0) converts any later time.Now() to the kernel's clock, which is
// what go-heap -v -v prints.
func monoBase() (int64, time.Time) {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano(), time.Now()
}

// allocateSteadily is the well-named function that must dominate
// alloc_space once profiling is forced on: every byte the program
// allocates on purpose is allocated here.
//
//go:noinline
func allocateSteadily(slot int) {
	for i := 0; i < 16; i++ {
		b := make([]byte, 4096)
		b[0] = byte(i)
		sinkMu.Lock()
		sink[(slot*16+i)%len(sink)] = b
		sinkMu.Unlock()
	}
	atomic.AddInt64(&allocs, 1)
}

func worker(id int, pause time.Duration, wg *sync.WaitGroup) {
	defer wg.Done()
	for n := 0; atomic.LoadInt32(&stopped) == 0; n++ {
		allocateSteadily(id + n)
		if pause > 0 {
			time.Sleep(pause)
		}
	}
}

// gapMonitor measures the target's own view of a stop: while every thread
// is stopped this loop cannot run, so the longest interval between two
// consecutive clock reads bounds the stop from below.  time.Now reads the
// monotonic clock through the vDSO and does not allocate.
func gapMonitor(ready chan<- struct{}) {
	runtime.LockOSThread()
	base, t0 := monoBase()
	close(ready)
	last := time.Now()
	for atomic.LoadInt32(&stopped) == 0 {
		now := time.Now()
		d := int64(now.Sub(last))
		if d > atomic.LoadInt64(&maxGap) {
			atomic.StoreInt64(&maxGap, d)
		}
		if d > 50000 {
			gapMu.Lock()
			if len(gapList) < 4096 {
				gapList = append(gapList, [2]int64{base + int64(last.Sub(t0)), base + int64(now.Sub(t0))})
			}
			gapMu.Unlock()
		}
		last = now
	}
}

// parkLocked holds its own OS thread, parked until park is closed: the
// stack walk of go-heap's force mode must find it on that thread, past the
// runtime's g0 frames (tests/run-force.sh, GOHEAP_TEST_UNSAFE_FUNC).
//
//go:noinline
func parkLocked(park <-chan struct{}, locked *sync.WaitGroup) {
	runtime.LockOSThread()
	locked.Done()
	<-park
}

// spinTop, spinOuter and spinInner keep one thread busy in user code.
// spinInner makes no calls (no frame of its own is needed, and nothing to
// preempt it at but the runtime's signal), so depending on where the stop
// catches the thread, spinOuter's return address is in the frame-pointer
// chain, at SP, or only in a signal frame; spinTop's is always in the chain.
//
//go:noinline
func spinTop(ready chan<- struct{}) {
	runtime.LockOSThread()
	close(ready)
	spinOuter()
}

//go:noinline
func spinOuter() {
	for atomic.LoadInt32(&stopped) == 0 {
		spinInner()
	}
}

//go:noinline
func spinInner() {
	for i := 0; i < 1000000 && atomic.LoadInt32(&stopped) == 0; i++ {
	}
}

func threadCount() int {
	ents, err := ioutil.ReadDir("/proc/self/task")
	if err != nil {
		return -1
	}
	return len(ents)
}

func main() {
	threads := flag.Int("threads", 0, "extra OS threads (LockOSThread goroutines)")
	workers := flag.Int("workers", 1, "allocating goroutines")
	pause := flag.Duration("pause", time.Millisecond, "pause between batches")
	gap := flag.Bool("gap", false, "run the scheduling-gap monitor")
	spin := flag.Bool("spin", false, "run a goroutine spinning in main.spinTop")
	gapFile := flag.String("gapfile", "", "write the longest gap here on SIGUSR1")
	flag.Parse()

	fmt.Printf("forceprog: pid %d %s\n", os.Getpid(), runtime.Version())

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGTERM, syscall.SIGINT)

	park := make(chan struct{})
	var locked sync.WaitGroup
	for i := 0; i < *threads; i++ {
		locked.Add(1)
		go parkLocked(park, &locked)
	}
	locked.Wait()

	if *spin {
		ready := make(chan struct{})
		go spinTop(ready)
		<-ready
	}
	if *gap {
		ready := make(chan struct{})
		go gapMonitor(ready)
		<-ready
	}

	var wg sync.WaitGroup
	for i := 0; i < *workers; i++ {
		wg.Add(1)
		go worker(i, *pause, &wg)
	}

	// Every locked goroutine holds its own M: wait until they all exist.
	for i := 0; i < 200 && threadCount() < *threads; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Printf("READY %d\n", os.Getpid())

	status := func() string {
		return fmt.Sprintf("rate=%d maxgap_us=%d allocs=%d threads=%d",
			runtime.MemProfileRate, atomic.LoadInt64(&maxGap)/1000,
			atomic.LoadInt64(&allocs), threadCount())
	}
	for s := range sigs {
		switch s {
		case syscall.SIGUSR1:
			fmt.Printf("STATUS %s\n", status())
			if *gapFile != "" {
				line := fmt.Sprintf("maxgap_us %d\n", atomic.LoadInt64(&maxGap)/1000)
				gapMu.Lock()
				for _, g := range gapList {
					line += fmt.Sprintf("gap %d %d\n", g[0], g[1])
				}
				gapMu.Unlock()
				if err := ioutil.WriteFile(*gapFile+".tmp", []byte(line), 0o644); err == nil {
					os.Rename(*gapFile+".tmp", *gapFile)
				}
			}
		case syscall.SIGUSR2:
			atomic.StoreInt64(&maxGap, 0)
			gapMu.Lock()
			gapList = gapList[:0]
			gapMu.Unlock()
			fmt.Println("RESET")
		default:
			atomic.StoreInt32(&stopped, 1)
			wg.Wait()
			close(park)
			fmt.Printf("EXIT ok %s\n", strings.TrimSpace(status()))
			os.Exit(0)
		}
	}
}
