// Command heapbench creates a heap profile with about N buckets shaped like a
// real program's and measures how long the program itself needs to write it
// (pprof.WriteHeapProfile: proto + gzip.BestSpeed, as Go does), for
// bench/run-bench.sh.
//
//	heapbench [-n 10000] [-runs 7] [-keeprate] [-grouped]
//
// The shape (issue 14): stacks 17 frames deep (runtime.goexit, runtime.main,
// main.main, build, five fixed "request path" frames, seven branching
// levels, the allocating function; 16 locations, goexit has none), about
// N/8 distinct stacks (12 500 at N = 100 000), each shared by 4 to 12
// buckets of different size classes (8 on average).  Distinct stacks come from the branching levels: level k
// is its own function lk, which calls level k+1 from one of 4 call sites
// chosen by two bits of the path, so 4^7 = 16384 paths give 16384 distinct
// stacks, through 28 distinct call sites (about 80 locations in all, with
// the runtime's own buckets).
//
// Buckets are created in a shuffled order (fixed seed), as a program
// creates them over time: the buckets of one stack are rarely neighbours in
// runtime.mbuckets.  -grouped creates each stack's buckets one after the
// other instead (the order a slice growing at one call site produces), the
// shape of this benchmark before issue 14.
//
// Buckets are created at MemProfileRate = 1.  Then, by default, the rate is
// set back to Go's default (512 KiB) for the timed writes, as in a production
// program (at rate 1 the writer would also sample each of its own
// allocations, which is slower and grows the profile); -keeprate keeps 1.
//
// Output lines (stdout):  "buckets N", "stacks S", "inproc_ms MEDIAN MIN
// MAX", then "READY <pid>"; then it waits, allocation-free, until killed.
package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"time"
)

var _ = func() int { runtime.MemProfileRate = 1; return 0 }()

// Go size classes: a bucket is keyed by (stack, rounded size).  Not 8: the
// tiny allocator would merge it with 16.
var sizes = [16]int{16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240}

const levels = 7 // 4^levels paths

var sink [][]byte

//go:noinline
func alloc(size int) { sink = append(sink, make([]byte, size)) }

// The branching levels: one function each, four call sites each.

//go:noinline
func l0(p uint64, s int) {
	switch p & 3 {
	case 0:
		l1(p>>2, s)
	case 1:
		l1(p>>2|1<<62, s)
	case 2:
		l1(p>>2|2<<62, s)
	default:
		l1(p>>2|3<<62, s)
	}
}

//go:noinline
func l1(p uint64, s int) {
	switch p & 3 {
	case 0:
		l2(p>>2, s)
	case 1:
		l2(p>>2|1<<62, s)
	case 2:
		l2(p>>2|2<<62, s)
	default:
		l2(p>>2|3<<62, s)
	}
}

//go:noinline
func l2(p uint64, s int) {
	switch p & 3 {
	case 0:
		l3(p>>2, s)
	case 1:
		l3(p>>2|1<<62, s)
	case 2:
		l3(p>>2|2<<62, s)
	default:
		l3(p>>2|3<<62, s)
	}
}

//go:noinline
func l3(p uint64, s int) {
	switch p & 3 {
	case 0:
		l4(p>>2, s)
	case 1:
		l4(p>>2|1<<62, s)
	case 2:
		l4(p>>2|2<<62, s)
	default:
		l4(p>>2|3<<62, s)
	}
}

//go:noinline
func l4(p uint64, s int) {
	switch p & 3 {
	case 0:
		l5(p>>2, s)
	case 1:
		l5(p>>2|1<<62, s)
	case 2:
		l5(p>>2|2<<62, s)
	default:
		l5(p>>2|3<<62, s)
	}
}

//go:noinline
func l5(p uint64, s int) {
	switch p & 3 {
	case 0:
		l6(p>>2, s)
	case 1:
		l6(p>>2|1<<62, s)
	case 2:
		l6(p>>2|2<<62, s)
	default:
		l6(p>>2|3<<62, s)
	}
}

//go:noinline
func l6(p uint64, s int) {
	switch p & 3 {
	case 0:
		alloc(s)
	case 1:
		alloc(s + 0*int(p>>62))
	case 2:
		alloc(s + 0*int(p>>61))
	default:
		alloc(s + 0*int(p>>60))
	}
}

// The fixed part of every stack, as a server's request path would be.

//go:noinline
func serve(p uint64, s int) { route(p, s) }

//go:noinline
func route(p uint64, s int) { handle(p, s) }

//go:noinline
func handle(p uint64, s int) { process(p, s) }

//go:noinline
func process(p uint64, s int) { decode(p, s) }

//go:noinline
func decode(p uint64, s int) { l0(p, s) }

type pair struct {
	path uint64
	size int
}

//go:noinline
func build(pairs []pair) {
	for _, q := range pairs {
		serve(q.path, q.size)
	}
}

func main() {
	n := flag.Int("n", 10000, "number of buckets to create (approximately: plus the runtime's own)")
	runs := flag.Int("runs", 7, "timed WriteHeapProfile runs")
	keepRate := flag.Bool("keeprate", false, "keep MemProfileRate = 1 while timing")
	grouped := flag.Bool("grouped", false, "create each stack's buckets one after the other")
	flag.Parse()
	debug.SetGCPercent(-1)

	// Stack j: path (j * odd) mod 4^levels, so that consecutive stacks
	// differ from the first level on; 4 + h%9 size classes from a rotating
	// start.  Past 4^levels stacks, paths repeat (fewer buckets than -n).
	pairs := make([]pair, 0, *n)
	stacks := 0
	for j := 0; len(pairs) < *n; j++ {
		path := uint64(j) * 40503 % (1 << (2 * levels))
		h := uint32(j) * 2654435761
		k := 4 + int(h>>16)%9
		for i := 0; i < k && len(pairs) < *n; i++ {
			pairs = append(pairs, pair{path, sizes[(j+i*3)%len(sizes)]})
		}
		stacks++
	}
	if !*grouped {
		r := rand.New(rand.NewSource(1))
		r.Shuffle(len(pairs), func(a, b int) { pairs[a], pairs[b] = pairs[b], pairs[a] })
	}
	build(pairs)
	pairs = nil
	runtime.GC() // make the records "active" (no "clear" fold)
	if !*keepRate {
		runtime.MemProfileRate = 512 * 1024
	}

	nb, _ := runtime.MemProfile(nil, true)
	fmt.Printf("buckets %d\nstacks %d\n", nb, stacks)
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
