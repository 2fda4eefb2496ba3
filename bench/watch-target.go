// Command watch-target is bench/watch-mem.sh's frozen target: it creates about
// N distinct heap profile buckets at runtime.MemProfileRate = 1, runs two GCs
// so that all of them are published in the heap profile, prints
// "READY <pid> buckets <n>", then sleeps without allocating until killed.
//
//	watch-target [-n 10000]
//
// Distinct stacks come from a binary recursion as in bench/heapbench.go: at
// each level the path goes through left() or right() (two call sites), and
// each path allocates one object of one of 8 sizes.  Standard library only.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
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
	flag.Parse()
	depth := 0
	for (1<<depth)*len(sizes) < *n {
		depth++
	}
	sink = make([][]byte, 0, *n)
	for i := 0; i < *n; i++ {
		step(depth, uint64(i/len(sizes)), sizes[i%len(sizes)])
	}
	runtime.GC()
	runtime.GC()
	nb, _ := runtime.MemProfile(nil, true)
	fmt.Printf("READY %d buckets %d\n", os.Getpid(), nb)
	os.Stdout.Sync()
	for {
		time.Sleep(time.Hour)
	}
}
