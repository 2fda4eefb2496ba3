// Command retainbench is the target of bench/retained-bench.sh: a heap of
// about N small objects held by globals (a map of N/10 *val, a linked list
// of the rest), settled by runtime.GC; it times its own
// debug.WriteHeapDump (to /dev/null) as the in-process anchor (-pad: the
// list's nodes carry 88 bytes more, 112-byte objects: ~1 GiB at 10 M), prints
//
//	OBJECTS <HeapObjects> <HeapAlloc>
//	DUMP <seconds, median of -runs>
//	READY
//
// and blocks.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"syscall"
	"time"
)

type val struct {
	p  *val
	id uint64
	a  [2]uint64
}

type node struct {
	next *node
	v    uint64
}

type padnode struct {
	next *padnode
	v    uint64
	pad  [11]uint64
}

var (
	cache   map[uint64]*val
	list    *node
	padlist *padnode
)

func main() {
	n := flag.Int("n", 1000000, "objects (approximately)")
	runs := flag.Int("runs", 3, "timed WriteHeapDump runs")
	pad := flag.Bool("pad", false, "112-byte list nodes")
	flag.Parse()
	cache = make(map[uint64]*val)
	for i := 0; i < *n/10; i++ {
		cache[uint64(i)] = &val{id: uint64(i)}
	}
	for i := 0; i < *n-*n/10; i++ {
		if *pad {
			padlist = &padnode{next: padlist, v: uint64(i)}
		} else {
			list = &node{next: list, v: uint64(i)}
		}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	f, err := os.OpenFile("/dev/null", os.O_WRONLY, 0)
	if err != nil {
		panic(err)
	}
	var ts []float64
	for i := 0; i < *runs; i++ {
		t0 := time.Now()
		debug.WriteHeapDump(f.Fd())
		ts = append(ts, time.Since(t0).Seconds())
	}
	sort.Float64s(ts)
	fmt.Printf("OBJECTS %d %d\nDUMP %.3f\nREADY\n", ms.HeapObjects, ms.HeapAlloc, ts[len(ts)/2])
	var b [1]byte
	for {
		syscall.Read(0, b[:])
		time.Sleep(time.Hour)
	}
}
