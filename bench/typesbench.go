// Command typesbench is the target of bench/types-bench.sh: a heap of
// mixed objects of about -mib MiB, a scheduling-gap monitor that measures
// how long the program is held still (by go-heap's stop, or by its own
// stop-the-world pauses), and the in-process answers to "what is in the
// heap" (debug.WriteHeapDump to /dev/null, runtime.ReadMemStats) timed on
// request.  Standard library only.
//
// Usage: typesbench -mib N [-holes] [-gapfile F]
//
// -holes: once built, every other small object is dropped and two GCs
// run: most spans are then partly free (a heap after churn), which the
// snapshot's stop must read again (a full span it may skip).
//
// The heap, by bytes: ~30% small noscan ([]byte of 16-256 B), ~30% small
// pointerful (linked 32 B nodes, 64 B structs), ~25% pointerful objects
// over 512 B (a malloc header from go1.22: 704 B and 2 KiB structs,
// slices of structs), ~10% large ([]byte of 64 KiB, []*T of 40 KiB),
// and maps (map[int]*T).  All of it stays reachable.
//
// The gap monitor (bench/gorbench.go's): a goroutine locked to its thread
// reads the clock in a tight loop; gaps over 50 us are kept as
// CLOCK_MONOTONIC intervals.
//
// Signals:
//
//	SIGUSR2  reset the longest gap and the gap list; prints "RESET"
//	SIGUSR1  write "gap START END" lines (ns) to -gapfile, print
//	         "STATUS maxgap_us=G"
//	SIGHUP   prints "INPROC dump_ms=T dump_gap_us=G dump_stw_max_us=M
//	         ms_ms=T2 ms_gap_us=G2 heap_objects=O heap_alloc=A": the
//	         time of debug.WriteHeapDump (to /dev/null) and the longest
//	         gap and stop-the-world pause during it
//	         (/sched/pauses/total/other:seconds, 1.22+), then the same of
//	         runtime.ReadMemStats
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
	"runtime/debug"
	"runtime/metrics"
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

type node struct {
	next *node
	v    uint64
	w    [2]uint64
}
type pair struct {
	a, b *node
	x    [6]uint64
}
type big struct { // 704 B class: a header
	p *big
	a [80]uint64
}
type bigger struct { // 2 KiB class: a header
	p, q *bigger
	a    [250]uint64
}
type elem struct {
	p    *node
	x, y uint64
}

var (
	keepBytes   [][]byte
	keepNodes   []*node
	keepPairs   []*pair
	keepBig     []*big
	keepBigger  []*bigger
	keepElems   [][]elem
	keepLarge   [][]byte
	keepPtrs    [][]*node
	keepMaps    []map[int]*node
	rnd         uint64 = 88172645463325252
	allocated   int64
	pauseMetric        = "/sched/pauses/total/other:seconds"
)

func next() uint64 {
	rnd ^= rnd << 13
	rnd ^= rnd >> 7
	rnd ^= rnd << 17
	return rnd
}

// build allocates about mib MiB, in rounds of ~1 MiB of the mix.
func build(mib int) {
	var head *node
	for allocated < int64(mib)<<20 {
		for i := 0; i < 1200; i++ { // ~160 KB noscan, 16-256 B
			n := 16 + int(next()%241)
			keepBytes = append(keepBytes, make([]byte, n))
			allocated += int64(n)
		}
		for i := 0; i < 5000; i++ { // ~160 KB of 32 B nodes
			head = &node{next: head, v: uint64(i)}
			allocated += 32
		}
		keepNodes = append(keepNodes, head)
		head = nil
		for i := 0; i < 2000; i++ { // ~128 KB of 64 B pairs
			keepPairs = append(keepPairs, &pair{})
			allocated += 64
		}
		for i := 0; i < 200; i++ { // ~140 KB headered 704 B
			keepBig = append(keepBig, &big{})
			allocated += 704
		}
		for i := 0; i < 40; i++ { // ~80 KB headered 2 KiB
			keepBigger = append(keepBigger, &bigger{})
			allocated += 2048
		}
		for i := 0; i < 20; i++ { // ~48 KB: []elem of 100 (2400 B, headered)
			keepElems = append(keepElems, make([]elem, 100))
			allocated += 2432
		}
		keepLarge = append(keepLarge, make([]byte, 64<<10)) // 64 KiB noscan
		allocated += 64 << 10
		if next()%2 == 0 {
			keepPtrs = append(keepPtrs, make([]*node, 5000)) // 40 KiB pointers
			allocated += 40 << 10
		}
		m := make(map[int]*node, 64)
		for i := 0; i < 64; i++ {
			m[i] = keepNodes[len(keepNodes)-1]
		}
		keepMaps = append(keepMaps, m)
		allocated += 64 * 24
	}
}

func pauses() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: pauseMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return nil
	}
	return s[0].Value.Float64Histogram()
}

// stwMax: the upper bound of the highest bucket that grew from h0 to h1.
func stwMax(h0, h1 *metrics.Float64Histogram) float64 {
	mx := 0.0
	if h0 == nil || h1 == nil {
		return 0
	}
	for i := range h1.Counts {
		if h1.Counts[i] == h0.Counts[i] {
			continue
		}
		hi := h1.Buckets[i+1]
		if math.IsInf(hi, 1) {
			hi = h1.Buckets[i]
		}
		if hi > mx {
			mx = hi
		}
	}
	return mx
}

var devnull *os.File

func inproc() string {
	var ms runtime.MemStats
	h0 := pauses()
	atomic.StoreInt64(&maxGap, 0)
	t0 := time.Now()
	debug.WriteHeapDump(devnull.Fd())
	dump := time.Since(t0)
	time.Sleep(20 * time.Millisecond) // the monitor runs again: its gap is recorded
	g := atomic.LoadInt64(&maxGap)
	h1 := pauses()
	atomic.StoreInt64(&maxGap, 0)
	t1 := time.Now()
	runtime.ReadMemStats(&ms)
	rms := time.Since(t1)
	time.Sleep(20 * time.Millisecond)
	g2 := atomic.LoadInt64(&maxGap)
	return fmt.Sprintf("INPROC dump_ms=%.3f dump_gap_us=%d dump_stw_max_us=%.1f ms_ms=%.3f ms_gap_us=%d heap_objects=%d heap_alloc=%d",
		float64(dump)/1e6, g/1000, stwMax(h0, h1)*1e6, float64(rms)/1e6, g2/1000,
		ms.HeapObjects, ms.HeapAlloc)
}

func main() {
	mib := flag.Int("mib", 100, "heap size to build, MiB")
	gapFile := flag.String("gapfile", "", "gap list file (SIGUSR1)")
	holes := flag.Bool("holes", false, "drop every other small object")
	flag.Parse()
	var err error
	devnull, err = os.OpenFile("/dev/null", os.O_WRONLY, 0)
	if err != nil {
		panic(err)
	}
	build(*mib)
	if *holes {
		for i := 0; i < len(keepBytes); i += 2 {
			keepBytes[i] = nil
		}
		for i := 0; i < len(keepPairs); i += 2 {
			keepPairs[i] = nil
		}
		for i := 0; i < len(keepBig); i += 2 {
			keepBig[i] = nil
		}
		for _, h := range keepNodes { // every other node of each list
			for n := h; n != nil && n.next != nil; n = n.next {
				n.next = n.next.next
			}
		}
	}
	runtime.GC()
	runtime.GC()
	ready := make(chan struct{})
	go gapMonitor(ready)
	<-ready
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("typesbench: pid %d %s heap_alloc=%d heap_objects=%d\n", os.Getpid(),
		runtime.Version(), ms.HeapAlloc, ms.HeapObjects)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGHUP, syscall.SIGTERM)
	fmt.Println("READY", *mib)
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
