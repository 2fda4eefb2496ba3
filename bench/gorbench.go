// Command gorbench is the target of bench/gor-bench.sh: N goroutines
// parked in a few ways, a scheduling-gap monitor that measures how long
// the program is held still (by go-heap's stop, or by its own profile's
// stop-the-world pauses), and the in-process goroutine profile
// (pprof.Lookup("goroutine").WriteTo(w, 1)) timed on request.
// Standard library only.
//
// Usage: gorbench -n N [-gapfile F] [-shape flat|deep]
//
// Goroutines (N in all, round-robin): blocked on a channel receive, in a
// select on two channels, on a sync.Mutex, on a sync.Cond, in a long
// time.Sleep, in sync.WaitGroup.Wait; with -shape flat (the default)
// every 8th one 3 frames deeper; -shape deep (built with gordeep.go)
// parks them 20 to 60 frames deep through many distinct functions.
//
// The gap monitor (as tests/go/forceprog -gap): a goroutine locked to its
// thread reads the clock in a tight loop; the longest interval between two
// reads bounds from below how long the program could not run.  Gaps over
// 50 us are kept as CLOCK_MONOTONIC intervals so that a caller can tell
// which gap overlapped its own stop.
//
// Signals:
//
//	SIGUSR2  reset the longest gap and the gap list; prints "RESET"
//	SIGUSR1  write "gap START END" lines (ns) to -gapfile, print
//	         "STATUS maxgap_us=G"
//	SIGHUP   run the in-process profile once with debug=1 and once with
//	         debug=2 (runtime.Stack(all)'s traceback): prints "INPROC
//	         total_ms=T maxgap_us=G stw_n=K stw_max_us=M stw_sum_us=S
//	         stop_max_us=P bytes=B tb_total_ms=... tb_maxgap_us=...
//	         tb_stw_n=... tb_stw_max_us=... tb_stw_sum_us=...
//	         tb_stop_max_us=... tb_bytes=...", where T is WriteTo's wall
//	         time, G the longest gap during it and K, M, S the
//	         stop-the-world pauses that happened during it, from the
//	         runtime/metrics histogram /sched/pauses/total/other:seconds
//	         (M: upper bound of the highest bucket that grew; 1.22+), P
//	         the same bound of /sched/pauses/stopping/other:seconds (the
//	         time to stop the world, part of each pause)
//	SIGTERM  exit
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

var (
	maxGap  int64
	gapMu   sync.Mutex
	gapList [][2]int64
	sink    int64
)

func monoBase() (int64, time.Time) {
	var ts syscall.Timespec
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, 1, uintptr(unsafe.Pointer(&ts)), 0)
	return ts.Nano(), time.Now()
}

func gapMonitor(ready chan<- struct{}) {
	runtime.LockOSThread()
	base, t0 := monoBase()
	close(ready)
	last := time.Now()
	for {
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

//go:noinline
func deeper(d int, f func()) {
	if d > 0 {
		deeper(d-1, f)
		atomic.AddInt64(&sink, 1)
		return
	}
	f()
}

var (
	ch     = make(chan int)
	ch2    = make(chan int)
	mu     sync.Mutex
	cmu    sync.Mutex
	cond   = sync.NewCond(&cmu)
	wg     sync.WaitGroup
	parked sync.WaitGroup
)

// parkFn: the way goroutine i parks (a closure that blocks for good).
func parkFn(i int) func() {
	f := func() {}
	switch i % 6 {
	case 0:
		f = func() { parked.Done(); <-ch }
	case 1:
		f = func() {
			parked.Done()
			select {
			case <-ch:
			case <-ch2:
			}
		}
	case 2:
		f = func() { parked.Done(); mu.Lock(); mu.Unlock() }
	case 3:
		f = func() { cmu.Lock(); parked.Done(); cond.Wait(); cmu.Unlock() }
	case 4:
		f = func() { parked.Done(); time.Sleep(1000 * time.Hour) }
	case 5:
		f = func() { parked.Done(); wg.Wait() }
	}
	return f
}

// shapes: how goroutine i gets to its parking place (-shape)
var shapes = map[string]func(i int){"flat": park}

func park(i int) {
	f := parkFn(i)
	if i%8 == 7 {
		deeper(3, f)
	} else {
		f()
	}
}

func pauses(name string) *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return nil
	}
	return s[0].Value.Float64Histogram()
}

// grew: the count, the largest upper bound and the sum (bucket middles)
// of the histogram's growth from h0 to h1.
func grew(h0, h1 *metrics.Float64Histogram) (n uint64, mx, sum float64) {
	if h0 == nil || h1 == nil {
		return
	}
	for i := range h1.Counts {
		d := h1.Counts[i] - h0.Counts[i]
		if d == 0 {
			continue
		}
		n += d
		hi := h1.Buckets[i+1]
		lo := h1.Buckets[i]
		if math.IsInf(hi, 1) {
			hi = lo
		}
		if math.IsInf(lo, -1) {
			lo = 0
		}
		if hi > mx {
			mx = hi
		}
		sum += float64(d) * (lo + hi) / 2
	}
	return
}

const (
	totalMetric = "/sched/pauses/total/other:seconds"
	stopMetric  = "/sched/pauses/stopping/other:seconds"
)

func inprocOne(debug int, pfx string) string {
	var buf bytes.Buffer
	h0, s0 := pauses(totalMetric), pauses(stopMetric)
	atomic.StoreInt64(&maxGap, 0)
	t0 := time.Now()
	pprof.Lookup("goroutine").WriteTo(&buf, debug)
	total := time.Since(t0)
	g := atomic.LoadInt64(&maxGap)
	h1, s1 := pauses(totalMetric), pauses(stopMetric)
	n, mx, sum := grew(h0, h1)
	_, smx, _ := grew(s0, s1)
	return fmt.Sprintf("%stotal_ms=%.3f %smaxgap_us=%d %sstw_n=%d %sstw_max_us=%.1f %sstw_sum_us=%.1f %sstop_max_us=%.1f %sbytes=%d",
		pfx, float64(total)/1e6, pfx, g/1000, pfx, n, pfx, mx*1e6, pfx, sum*1e6, pfx, smx*1e6, pfx, buf.Len())
}

func inproc() string {
	return "INPROC " + inprocOne(1, "") + " " + inprocOne(2, "tb_")
}

func main() {
	n := flag.Int("n", 10000, "goroutines to park")
	gapFile := flag.String("gapfile", "", "gap list file (SIGUSR1)")
	shape := flag.String("shape", "flat", "how the goroutines park: flat, deep (with gordeep.go)")
	flag.Parse()
	parkShape := shapes[*shape]
	if parkShape == nil {
		fmt.Fprintf(os.Stderr, "gorbench: no shape %q in this build\n", *shape)
		os.Exit(2)
	}
	fmt.Printf("gorbench: pid %d %s\n", os.Getpid(), runtime.Version())
	wg.Add(1)
	mu.Lock()
	parked.Add(*n)
	for i := 0; i < *n; i++ {
		go parkShape(i)
	}
	parked.Wait()
	time.Sleep(100 * time.Millisecond) // the Cond waiters reach Wait
	ready := make(chan struct{})
	go gapMonitor(ready)
	<-ready
	runtime.GC()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGHUP, syscall.SIGTERM)
	fmt.Println("READY", *n)
	for s := range sigs {
		switch s {
		case syscall.SIGUSR2:
			atomic.StoreInt64(&maxGap, 0)
			gapMu.Lock()
			gapList = gapList[:0]
			gapMu.Unlock()
			fmt.Println("RESET")
		case syscall.SIGUSR1:
			if *gapFile != "" {
				var b bytes.Buffer
				gapMu.Lock()
				for _, g := range gapList {
					fmt.Fprintf(&b, "gap %d %d\n", g[0], g[1])
				}
				gapMu.Unlock()
				os.WriteFile(*gapFile, b.Bytes(), 0o644)
			}
			fmt.Printf("STATUS maxgap_us=%d\n", atomic.LoadInt64(&maxGap)/1000)
		case syscall.SIGHUP:
			fmt.Println(inproc())
		case syscall.SIGTERM:
			fmt.Println("EXIT")
			os.Exit(0)
		}
	}
}
