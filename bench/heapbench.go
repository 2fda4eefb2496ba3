// Command heapbench creates a heap profile with about N buckets and measures
// how long the program itself needs to write it (pprof.WriteHeapProfile:
// proto + gzip.BestSpeed, as Go does), for bench/run-bench.sh.
//
//	heapbench [-n 10000] [-runs 7] [-keeprate]
//
// Buckets are keyed by (stack, size).  Distinct stacks come cheaply from a
// binary recursion: at each of `depth` levels the path goes through left()
// or right(), two non-inlined functions that call step() from different
// call sites, so 2^depth paths give 2^depth distinct stacks; each path
// allocates one object of one of 8 small size classes.  Depth stays below
// 32 frames, the bucket stack limit of Go <= 1.22.
//
// Buckets are created at MemProfileRate = 1.  Then, by default, the rate is
// set back to Go's default (512 KiB) for the timed writes, as in a production
// program (at rate 1 the writer would also sample each of its own
// allocations, which is slower and grows the profile); -keeprate keeps 1.
//
// Output lines (stdout):  "buckets N", "inproc_ms MEDIAN MIN MAX", then
// "READY <pid>"; then it waits, allocation-free, until killed.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"time"
)

var _ = func() int { runtime.MemProfileRate = 1; return 0 }()

var sizes = [8]int{16, 32, 48, 64, 96, 128, 192, 256}

var sink [][]byte

//go:noinline
func step(depth int, path uint64, size int) {
	if depth == 0 {
		sink = append(sink, make([]byte, size))
		return
	}
	if path&1 == 0 {
		left(depth-1, path>>1, size)
	} else {
		right(depth-1, path>>1, size)
	}
}

//go:noinline
func left(depth int, path uint64, size int) { step(depth, path, size) }

//go:noinline
func right(depth int, path uint64, size int) { step(depth, path, size) }

func main() {
	n := flag.Int("n", 10000, "number of buckets to create (approximately: plus the runtime's own)")
	runs := flag.Int("runs", 7, "timed WriteHeapProfile runs")
	keepRate := flag.Bool("keeprate", false, "keep MemProfileRate = 1 while timing")
	flag.Parse()
	debug.SetGCPercent(-1)

	// depth d with 2^d * 8 >= n.
	depth := 0
	for (1<<depth)*len(sizes) < *n {
		depth++
	}
	for i := 0; i < *n; i++ {
		step(depth, uint64(i/len(sizes)), sizes[i%len(sizes)])
	}
	runtime.GC() // make the records "active" (no "clear" fold)
	if !*keepRate {
		runtime.MemProfileRate = 512 * 1024
	}

	nb, _ := runtime.MemProfile(nil, true)
	fmt.Printf("buckets %d\n", nb)
	ms := make([]float64, 0, *runs)
	for i := 0; i < *runs; i++ {
		t0 := time.Now()
		if err := pprof.WriteHeapProfile(io.Discard); err != nil {
			fmt.Fprintln(os.Stderr, "heapbench:", err)
			os.Exit(1)
		}
		ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
	}
	sort.Float64s(ms)
	fmt.Printf("inproc_ms %.2f %.2f %.2f\n", ms[len(ms)/2], ms[0], ms[len(ms)-1])
	runtime.GC()
	os.Stdout.Write([]byte(fmt.Sprintf("READY %d\n", os.Getpid())))
	for {
		time.Sleep(time.Hour)
	}
}
