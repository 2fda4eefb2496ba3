// Command typesprog is the target of go-heap's heap-by-type test
// (tests/run-types.sh).  It allocates uniquely named types on every path
// of the allocator (tiny, small noscan, small pointerful <= 512 B,
// pointerful > 512 B with a malloc header, large with and without
// pointers, slices, maps, strings, channels), keeps them reachable, lets
// the GC settle, then writes its own debug.WriteHeapDump and
// runtime.ReadMemStats and stays still (a raw pipe read) without
// allocating, so that go-heap reads the heap the dump describes.
//
// Usage: typesprog DUMPFILE
//
//	typesprog -churn     (no dump: a goroutine allocates and drops
//	                      ChurnT and small objects for ever, so that
//	                      spans change while go-heap reads; the known
//	                      types above stay as they are)
//	typesprog -churn-big (the same after 84 MB of BulkT: 10 000+ spans)
//	typesprog -unswept DUMPFILE GOFILE
//	                     (run with GOMAXPROCS=1 and
//	                      GODEBUG=asyncpreemptoff=1: the heap right
//	                      after an automatic GC, its spans not yet
//	                      swept; see unswept below)
//
// Standard output, written with raw syscalls after the dump:
//
//	MEMSTATS <HeapObjects> <HeapAlloc>
//	COUNT <type> <n>        (one line per known type: how many were made)
//	READY
package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// Every type name below is unique to this program.
type TinyT struct{ a, b uint32 }   // 8 B, noscan: tiny blocks
type NoscanT struct{ a [5]uint64 } // 40 B -> class 48, noscan
type SmallPtrT struct {            // 24 B, pointers, no header
	p    *SmallPtrT
	a, b uint64
}
type HdrT struct { // 656 B: a header (1.22+), class 704
	p *HdrT
	a [81]uint64
}
type LargeT struct { // 48 KiB: a large span with largeType
	p *LargeT
	a [6000]uint64
}
type LargeNoscanT [50000]byte
type ElemT struct { // slice element: []ElemT of 100 -> headered 2400 B
	p    *int
	x, y uint64
}
type MapValT struct {
	p *int
	v uint64
}
type ChanT struct{ p *ChanT }
type ChurnT struct { // HdrT's size class: their spans change under go-heap
	p *ChurnT
	a [81]uint64
}
type BulkT struct { // -unswept: the live heap (112 B, pointers)
	p *BulkT
	a [13]uint64
}
type GarbT struct { // -unswept: dropped before the GC (64 B, pointers)
	p *GarbT
	a [7]uint64
}
type GarbHdrT struct { // -unswept: dropped before the GC (class 1024, header)
	p *GarbHdrT
	a [120]uint64
}
type TriggerT [16]uint64 // -unswept: dropped until a GC ran (noscan 128 B)

const (
	nTiny     = 200
	nNoscan   = 1000
	nSmallPtr = 1000
	nHdr      = 300
	nLarge    = 5
	nLargeNS  = 3
	nSlices   = 50
	nMapVals  = 1000
	nChans    = 10
	nBulk     = 100000
	nGarb     = 3000
	nGarbHdr  = 200
)

var (
	keepTiny     []*TinyT
	keepNoscan   []*NoscanT
	keepSmallPtr []*SmallPtrT
	keepHdr      []*HdrT
	keepLarge    []*LargeT
	keepLargeNS  []*LargeNoscanT
	keepSlices   [][]ElemT
	keepMap      map[uint64]*MapValT
	keepStrings  []string
	keepChans    []chan *ChanT

	sink  []*ChurnT
	sinkB []*[3]uint64
	sinkT *TriggerT
	keepB []*BulkT
	// -unswept: the addresses of the dropped GarbT and GarbHdrT
	dropped [nGarb + nGarbHdr]uintptr
	pipefd  [2]int
	out     = make([]byte, 0, 4096)
	rbuf    [1]byte
	ms      runtime.MemStats
)

func build() {
	for i := 0; i < nTiny; i++ {
		keepTiny = append(keepTiny, &TinyT{a: uint32(i)})
	}
	for i := 0; i < nNoscan; i++ {
		keepNoscan = append(keepNoscan, &NoscanT{})
	}
	for i := 0; i < nSmallPtr; i++ {
		keepSmallPtr = append(keepSmallPtr, &SmallPtrT{a: uint64(i)})
	}
	for i := 0; i < nHdr; i++ {
		keepHdr = append(keepHdr, &HdrT{})
	}
	for i := 0; i < nLarge; i++ {
		keepLarge = append(keepLarge, &LargeT{})
	}
	for i := 0; i < nLargeNS; i++ {
		keepLargeNS = append(keepLargeNS, new(LargeNoscanT))
	}
	for i := 0; i < nSlices; i++ {
		keepSlices = append(keepSlices, make([]ElemT, 100))
	}
	keepMap = make(map[uint64]*MapValT)
	for i := 0; i < nMapVals; i++ {
		keepMap[uint64(i)] = &MapValT{v: uint64(i)}
	}
	for i := 0; i < 100; i++ {
		keepStrings = append(keepStrings, strings.Repeat("x", 100+i))
	}
	for i := 0; i < nChans; i++ {
		keepChans = append(keepChans, make(chan *ChanT, 200))
	}
}

func num(v uint64) {
	out = strconv.AppendUint(out, v, 10)
}

func line(parts ...string) {
	for i, p := range parts {
		if i > 0 {
			out = append(out, ' ')
		}
		out = append(out, p...)
	}
}

func count(name string, n int) {
	line("COUNT", name, "")
	num(uint64(n))
	out = append(out, '\n')
}

func churn() {
	for i := 0; ; i++ {
		c := make([]*ChurnT, 0, 64)
		b := make([]*[3]uint64, 0, 64)
		for j := 0; j < 64; j++ {
			c = append(c, &ChurnT{})
			b = append(b, new([3]uint64))
		}
		sink, sinkB = c, b
		if i%64 == 0 {
			runtime.Gosched()
		}
	}
}

// spareMs leaves idle threads (Ms) behind: go-heap's stop lengthens the
// pipe read main blocks in, sysmon then hands its P to another M, and
// without an idle one the runtime would allocate a new m and its g0 and
// gsignal after the dump (go1.22 did).
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

func gcCycles(s []metrics.Sample) uint64 {
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// garbage allocates nGarb GarbT and nGarbHdr GarbHdrT, notes their
// addresses and drops them.
//
//go:noinline
func garbage() {
	g := make([]*GarbT, nGarb)
	h := make([]*GarbHdrT, nGarbHdr)
	for i := range g {
		g[i] = &GarbT{}
		dropped[i] = uintptr(unsafe.Pointer(g[i]))
	}
	for i := range h {
		h[i] = &GarbHdrT{}
		dropped[nGarb+i] = uintptr(unsafe.Pointer(h[i]))
	}
}

// wait spins until the file path (NUL-terminated) exists, with raw
// system calls only: the goroutine keeps the only P (GOMAXPROCS=1) and,
// with asyncpreemptoff=1, is never preempted, so the background sweeper
// never runs.
func wait(path []byte) {
	ts := syscall.Timespec{Nsec: 2e6}
	for {
		_, _, e := syscall.RawSyscall6(syscall.SYS_FACCESSAT,
			atFdcwd, uintptr(unsafe.Pointer(&path[0])), 0, 0, 0, 0)
		if e == 0 {
			return
		}
		syscall.RawSyscall(syscall.SYS_NANOSLEEP,
			uintptr(unsafe.Pointer(&ts)), 0, 0)
	}
}

const atFdcwd = ^uintptr(99) // AT_FDCWD, -100

func memline(tag string, m *runtime.MemStats) {
	line(tag, "")
	num(m.HeapObjects)
	out = append(out, ' ')
	num(m.HeapAlloc)
	out = append(out, '\n')
}

// unswept: the heap right after an automatic GC.  A live heap of BulkT
// (11 MB) and the known types; a forced GC (everything swept); GarbT and
// GarbHdrT made and dropped (their addresses noted), with no GC meanwhile;
// then TriggerT made and dropped until the GC counter moves: that GC found
// every GarbT and GarbHdrT unreachable, and the sweeper, which runs only
// when main lets it, has hardly begun.  MemStats, then main spins (wait)
// until GOFILE exists: go-heap reads the heap then.  Then the heap dump
// (debug.WriteHeapDump sweeps every span first: the reachable objects),
// MemStats after it and after runtime.GC, and the dropped addresses.
//
//	MEMSTATS <HeapObjects> <HeapAlloc>   (right after the GC)
//	UNSWEPT ok | UNSWEPT SKIP <why>
//	READY
//	... after GOFILE:
//	AFTERDUMP <HeapObjects> <HeapAlloc>
//	AFTERGC <HeapObjects> <HeapAlloc>
//	DROPPED <address>                    (nGarb + nGarbHdr lines)
//	DONE
func unswept(dump, gofile string) {
	path := append([]byte(gofile), 0)
	fd, err := syscall.Open(dump, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC, 0o644)
	if err != nil {
		panic(err)
	}
	out = make([]byte, 0, 1<<20)
	build()
	keepB = make([]*BulkT, nBulk)
	for i := range keepB {
		keepB[i] = &BulkT{}
	}
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	debug.SetGCPercent(100)
	ok := false
	for try := 0; try < 5 && !ok; try++ {
		runtime.GC()
		n0 := gcCycles(s)
		garbage()
		if gcCycles(s) != n0 {
			continue // a GC ran among the garbage: again
		}
		for gcCycles(s) == n0 {
			for j := 0; j < 64; j++ {
				sinkT = new(TriggerT)
			}
		}
		ok = gcCycles(s) == n0+1
	}
	runtime.ReadMemStats(&ms)
	memline("MEMSTATS", &ms)
	if !ok {
		out = append(out, "UNSWEPT SKIP no try made its garbage before an automatic GC\n"...)
	} else {
		out = append(out, "UNSWEPT ok\n"...)
	}
	out = append(out, "READY\n"...)
	// a raw write: syscall.Write would leave the P to the scheduler
	// (entersyscall), and a busy host delaying the thread would let
	// sysmon hand it to the background sweeper
	syscall.RawSyscall(syscall.SYS_WRITE, 1, uintptr(unsafe.Pointer(&out[0])), uintptr(len(out)))
	out = out[:0]
	wait(path)
	debug.WriteHeapDump(uintptr(fd))
	syscall.Close(fd)
	runtime.ReadMemStats(&ms)
	memline("AFTERDUMP", &ms)
	runtime.GC()
	runtime.ReadMemStats(&ms)
	memline("AFTERGC", &ms)
	for _, a := range dropped {
		out = append(out, "DROPPED 0x"...)
		out = strconv.AppendUint(out, uint64(a), 16)
		out = append(out, '\n')
	}
	out = append(out, "DONE\n"...)
	syscall.Write(1, out)
	for {
		syscall.Read(pipefd[0], rbuf[:])
	}
}

func main() {
	if len(os.Args) == 4 && os.Args[1] == "-unswept" {
		if err := syscall.Pipe(pipefd[:]); err != nil {
			panic(err)
		}
		unswept(os.Args[2], os.Args[3])
	}
	if len(os.Args) != 2 {
		os.Stderr.WriteString("usage: typesprog DUMPFILE | -churn | -churn-big | -unswept DUMPFILE GOFILE\n")
		os.Exit(2)
	}
	if err := syscall.Pipe(pipefd[:]); err != nil {
		panic(err)
	}
	if os.Args[1] == "-churn" || os.Args[1] == "-churn-big" {
		if os.Args[1] == "-churn-big" {
			// 10 000+ spans of BulkT first: the churn's spans come
			// after them, in the upper half of allspans, which the
			// snapshot's stop compares on its second thread
			keepB = make([]*BulkT, 750000)
			for i := range keepB {
				keepB[i] = &BulkT{}
			}
		}
		build()
		count("main.HdrT", nHdr)
		count("main.LargeT", nLarge)
		count("main.ElemT", nSlices)
		count("main.ChanT", nChans)
		out = append(out, "READY\n"...)
		syscall.Write(1, out)
		go churn()
		for {
			syscall.Read(pipefd[0], rbuf[:])
		}
	}
	spareMs()
	fd, err := syscall.Open(os.Args[1], syscall.O_WRONLY|syscall.O_CREAT|syscall.O_TRUNC, 0o644)
	if err != nil {
		panic(err)
	}
	build()
	// The counts line up before the heap settles: formatting them
	// afterwards must not allocate (out has its capacity).
	count("main.TinyT", nTiny)
	count("main.NoscanT", nNoscan)
	count("main.SmallPtrT", nSmallPtr)
	count("main.HdrT", nHdr)
	count("main.LargeT", nLarge)
	count("main.LargeNoscanT", nLargeNS)
	count("main.ElemT", nSlices)
	count("main.MapValT", nMapVals)
	count("main.ChanT", nChans)
	runtime.GC()
	runtime.GC()
	debug.FreeOSMemory()
	debug.WriteHeapDump(uintptr(fd))
	syscall.Close(fd)
	runtime.ReadMemStats(&ms)
	line("MEMSTATS", "")
	num(ms.HeapObjects)
	out = append(out, ' ')
	num(ms.HeapAlloc)
	out = append(out, "\nREADY\n"...)
	syscall.Write(1, out)
	for {
		syscall.Read(pipefd[0], rbuf[:])
	}
}
