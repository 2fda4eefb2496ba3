// Command retainbench is the target of bench/retained-bench.sh: a heap of
// about N small objects held by globals (a map of N/10 *val, a linked list
// of the rest), settled by runtime.GC; it times its own
// debug.WriteHeapDump (to /dev/null) as the in-process anchor (-pad: the
// list's nodes carry 88 bytes more, 112-byte objects: ~1 GiB at 10 M).
// -shape gives other heaps of about N objects (issue 39):
//
//	list         the default above
//	interleaved  N 112-byte nodes in 64 lists held by a global array, node i
//	             pointing at node i-64; every 8th also a value of a global map
//	             (N/8 entries); 16 buffers of 1 MiB
//	map          one global map of N entries, uint64 -> *val (32 B), each
//	             val pointing at a random earlier one
//	small        N 24-byte objects, each pointing at the one made before it
//	             and at a random earlier one, every 64th held by a global slice
//	arrays       N 16-byte noscan objects held by 8 pointer arrays of N/8
//	             (shuffled: the pointers jump across the heap)
//	tree         N 24-byte nodes (first child, next sibling), each a child of
//	             one of the 16 nodes made before it: a tree ~N/8 deep
//	goroutines   N/1000 goroutines (at least 1), each holding a list of 1000
//	             16-byte nodes from its stack, blocked on a channel
//
// It prints
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
	"math/rand"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"sync"
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
	heads   [64]*padnode
	imap    map[uint64]*padnode
	bufs    [16][]byte
	small   []*sobj
	arrays  [8][]*leaf
	root    *tnode
	block   chan struct{}
)

type sobj struct {
	a, b *sobj
	v    uint64
}

type leaf struct {
	a, b uint64
}

type tnode struct {
	child, sibling *tnode
	v              uint64
}

func makeShape(shape string, n int) {
	rng := rand.New(rand.NewSource(1))
	switch shape {
	case "interleaved":
		imap = make(map[uint64]*padnode)
		for i := 0; i < n; i++ {
			p := &padnode{next: heads[i%64], v: uint64(i)}
			heads[i%64] = p
			if i%8 == 0 {
				imap[uint64(i)] = p
			}
		}
		for i := range bufs {
			bufs[i] = make([]byte, 1<<20)
		}
	case "map":
		cache = make(map[uint64]*val)
		var all []*val
		for i := 0; i < n; i++ {
			v := &val{id: uint64(i)}
			if i > 0 {
				v.p = all[rng.Intn(i)]
			}
			all = append(all, v)
			cache[uint64(i)] = v
		}
	case "small":
		all := make([]*sobj, 0, n)
		for i := 0; i < n; i++ {
			o := &sobj{v: uint64(i)}
			if i > 0 {
				o.a = all[i-1]
				o.b = all[rng.Intn(i)]
			}
			all = append(all, o)
			if i%64 == 0 {
				small = append(small, o)
			}
		}
	case "arrays":
		all := make([]*leaf, n)
		for i := range all {
			all[i] = &leaf{a: uint64(i)}
		}
		rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
		per := (n + len(arrays) - 1) / len(arrays)
		for k := range arrays {
			lo, hi := k*per, (k+1)*per
			if lo > n {
				lo = n
			}
			if hi > n {
				hi = n
			}
			arrays[k] = make([]*leaf, hi-lo)
			copy(arrays[k], all[lo:hi])
		}
	case "tree":
		all := make([]*tnode, 0, n)
		root = &tnode{}
		all = append(all, root)
		for i := 1; i < n; i++ {
			lo := i - 16
			if lo < 0 {
				lo = 0
			}
			p := all[lo+rng.Intn(i-lo)]
			t := &tnode{sibling: p.child, v: uint64(i)}
			p.child = t
			all = append(all, t)
		}
	case "goroutines":
		block = make(chan struct{})
		g := n / 1000
		if g < 1 {
			g = 1
		}
		var wg sync.WaitGroup
		for i := 0; i < g; i++ {
			wg.Add(1)
			go hold(&wg, 1000)
		}
		wg.Wait()
	case "list":
	default:
		fmt.Fprintf(os.Stderr, "retainbench: unknown -shape %q\n", shape)
		os.Exit(2)
	}
}

// hold keeps a list of k nodes alive from its stack until block is closed.
func hold(wg *sync.WaitGroup, k int) {
	var l *node
	for i := 0; i < k; i++ {
		l = &node{next: l, v: uint64(i)}
	}
	wg.Done()
	<-block
	runtime.KeepAlive(l)
}

func main() {
	n := flag.Int("n", 1000000, "objects (approximately)")
	runs := flag.Int("runs", 3, "timed WriteHeapDump runs")
	pad := flag.Bool("pad", false, "112-byte list nodes")
	shape := flag.String("shape", "list", "list, interleaved, map, small, arrays, tree or goroutines")
	flag.Parse()
	if *shape == "list" {
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
	} else {
		makeShape(*shape, *n)
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
