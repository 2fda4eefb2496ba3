// Command retainprog is the target of go-heap's who-holds-the-heap test
// (tests/run-retained.sh).  It builds known graphs, lets the GC settle,
// reads runtime.MemStats (the heap the GC kept), then makes garbage, writes
// its own debug.WriteHeapDump (the oracle: every object's pointer fields
// and every root) and its MemStats, and stays still (a raw pipe read)
// without allocating.
//
//   - main.cache, a global map holding nCache *main.Val;
//   - main.list, a global linked list of nList *main.Node;
//   - main.iface, a global interface holding the only *main.Impl, which
//     alone holds a main.Big and a [64]uint64;
//   - main.bigp and main.hugep, types whose GC masks are built on demand
//     (1.27 and 1.24+), each holding two *main.Node;
//   - a goroutine (main.holder) whose frame alone holds a slice of nHeld
//     *main.Held;
//   - a *main.FinA and a *main.FinB pointing at each other, nothing else
//     pointing at them, a finalizer set on the FinA: the finalizer's root
//     keeps the FinA's referent, the FinB, which keeps the FinA (a cycle
//     with a finalizer is never collected);
//   - nGarbage *main.Garbage linked to each other, made after the last GC
//     and dropped: allocated, unreachable;
//   - after the dump, one *main.TinyT (8 bytes, no pointers), dropped: its
//     16-byte tiny block is its P's mcache.tiny, which the next GC marks
//     (gcMarkTinyAllocs) though nothing points at it; it is in neither the
//     dump nor MEMSTATS.
//
// Usage: retainprog DUMPFILE
//
// Standard output, written with raw syscalls:
//
//	GCSTATS <HeapObjects> <HeapAlloc>   (right after runtime.GC: what it kept)
//	MEMSTATS <HeapObjects> <HeapAlloc>  (at the dump)
//	COUNT <type> <n>
//	READY
package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"syscall"
)

type Val struct { // 48 B, pointers, no header
	p  *Val
	id uint64
	a  [4]uint64
}
type Node struct { // 16 B
	next *Node
	v    uint64
}
type Big struct { // 1608 B: a malloc header (1.22+)
	p    *Big
	data [200]uint64
}
type Impl struct {
	arr *[64]uint64
	big *Big
}
type Held struct { // 24 B
	p    *Held
	a, b uint64
}
type TinyT struct{ a, b uint32 }

var tinySink *TinyT

//go:noinline
func tinyDrop() {
	tinySink = &TinyT{a: 1}
	tinySink = nil
}

type Garbage struct {
	p *Garbage
	a [10]uint64
}

type FinA struct {
	b   *FinB
	pad [6]uint64
}
type FinB struct {
	a   *FinA
	pad [8]uint64
}

// Types with on-demand GC masks (TFlagGCMaskOnDemand): over 128 pointer
// words from 1.27 (BigPtrs, headered), over 16384 from 1.24 (HugePtrs,
// large); each holds two *Node nothing else points at.
type BigPtrs struct {
	n   [200]*Node
	pad [8]uint64
}
type HugePtrs struct {
	n [17000]*Node
}

var (
	bigp  *BigPtrs
	hugep *HugePtrs
)

type Iface interface{ M() uint64 }

func (i *Impl) M() uint64 { return i.arr[0] }

const (
	nCache   = 10000
	nList    = 100000
	nHeld    = 500
	nGarbage = 1000
)

var (
	cache  map[uint64]*Val
	list   *Node
	iface  Iface
	ready  = make(chan struct{})
	quit   = make(chan struct{})
	pipefd [2]int
	out    = make([]byte, 0, 4096)
	rbuf   [1]byte
	ms     runtime.MemStats
	gcms   runtime.MemStats
)

//go:noinline
func build() {
	cache = make(map[uint64]*Val)
	for i := 0; i < nCache; i++ {
		cache[uint64(i)] = &Val{id: uint64(i)}
	}
	for i := 0; i < nList; i++ {
		list = &Node{next: list, v: uint64(i)}
	}
	iface = &Impl{arr: new([64]uint64), big: &Big{}}
	bigp = &BigPtrs{}
	bigp.n[7] = &Node{v: 7}
	bigp.n[150] = &Node{v: 150}
	hugep = &HugePtrs{}
	hugep.n[3] = &Node{v: 3}
	hugep.n[16000] = &Node{v: 16000}
	finCycle()
}

func finalize(*FinA) {}

//go:noinline
func finCycle() {
	a := &FinA{}
	a.b = &FinB{a: a}
	runtime.SetFinalizer(a, finalize)
}

// holder keeps its slice on its own stack only, blocked on quit.
//
//go:noinline
func holder() {
	s := make([]*Held, nHeld)
	for i := range s {
		s[i] = &Held{a: uint64(i)}
	}
	ready <- struct{}{}
	<-quit
	runtime.KeepAlive(s)
}

//go:noinline
func garbage() {
	var g *Garbage
	for i := 0; i < nGarbage; i++ {
		g = &Garbage{p: g}
	}
	runtime.KeepAlive(g)
}

func num(v uint64) { out = strconv.AppendUint(out, v, 10) }

func stats(tag string, m *runtime.MemStats) {
	out = append(out, tag...)
	out = append(out, ' ')
	num(m.HeapObjects)
	out = append(out, ' ')
	num(m.HeapAlloc)
	out = append(out, '\n')
}

func count(name string, n int) {
	out = append(out, "COUNT "...)
	out = append(out, name...)
	out = append(out, ' ')
	num(uint64(n))
	out = append(out, '\n')
}

// spareMs leaves idle threads behind (as typesprog does): no new m after
// the dump when go-heap's stop lengthens the pipe read.
func spareMs() {
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			ts := syscall.Timespec{Nsec: 20e6}
			syscall.Nanosleep(&ts, nil)
			wg.Done()
		}()
	}
	wg.Wait()
}

func main() {
	if len(os.Args) != 2 {
		os.Stderr.WriteString("usage: retainprog DUMPFILE\n")
		os.Exit(2)
	}
	if err := syscall.Pipe(pipefd[:]); err != nil {
		panic(err)
	}
	spareMs()
	fd, err := syscall.Open(os.Args[1], syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC, 0o644)
	if err != nil {
		panic(err)
	}
	build()
	go holder()
	<-ready
	count("main.Val", nCache)
	count("main.Node", nList)
	count("main.Held", nHeld)
	count("main.Garbage", nGarbage)
	count("main.FinA", 1)
	runtime.GC()
	runtime.GC()
	debug.FreeOSMemory()
	// No GC from here on: the runtime forces one when none ran for 2 minutes
	// (forcegcperiod), which would free what go-heap must still find (the
	// garbage, the tiny block) when a loaded machine reads this program later
	// than that (issue 37).  The heap stays as the dump and MemStats saw it.
	debug.SetGCPercent(-1)
	runtime.ReadMemStats(&gcms)
	garbage()
	runtime.ReadMemStats(&ms)
	debug.WriteHeapDump(uintptr(fd))
	// after the dump and ReadMemStats, which flush every mcache (its tiny
	// block with it)
	tinyDrop()
	syscall.Close(fd)
	// the dump's start-the-world woke an idle M, which spins and parks
	// again (back at the head of sched.midle, where it was): let it, so
	// that go-heap does not find it between the two (issue 37: on a busy
	// machine under qemu, go1.19's M chain then had another holder and
	// its dominators differed from the dump's)
	settle := syscall.Timespec{Nsec: 300e6}
	syscall.Nanosleep(&settle, nil)
	stats("GCSTATS", &gcms)
	stats("MEMSTATS", &ms)
	out = append(out, "READY\n"...)
	syscall.Write(1, out)
	for {
		syscall.Read(pipefd[0], rbuf[:])
	}
}
