// Command rootsprog is the target of tests/run-retained-roots.sh: objects
// that only the garbage collector's less common roots keep alive, each
// holding a payload of a size found nowhere else in its heap (a large
// object: whole pages), so the test finds it by its size.
//
//   - nQueued *main.Queued with finalizers, dropped: the GC queues their
//     finalizers (runtime.allfin's blocks); every finalizer blocks, so the
//     first runs and blocks and the others stay queued: each Queued and
//     its qSize-byte payload are held only by its queued finalizer (the
//     running one keeps its slot until it returns);
//   - main.deferHolder's goroutine, parked, whose pending defer's closure
//     alone holds a dSize-byte payload: nine defers, so none is
//     open-coded; the record and the closure are on the stack, typed
//     uintptr to the compiler: only scanstack's walk of gp._defer finds
//     them;
//   - main.panicker's goroutine, parked in a deferred call while it
//     panics with a *main.PanicVal holding a pSize-byte payload: only
//     gp._panic (a stack record of runtime.gopanic) holds it;
//   - 1.24+ (extra_go124.go): a runtime.AddCleanup on a live *main.Owner
//     whose argument holds a cSize-byte payload (the cleanup special's
//     closure holds it); nCleanQ dropped objects with cleanups that
//     block, so their cSizeQ-byte payloads stay queued (1.24: on finq;
//     1.25+: gcCleanups' blocks); a weak.Make of a live *main.WeakObj
//     whose weak.Pointer is dropped: its handle is held by the special.
//
// Then runtime.GC, MemStats (GCSTATS: the heap the GC kept), its own
// debug.WriteHeapDump, and it stays still (a raw pipe read).
//
// Usage: rootsprog DUMPFILE
//
//	GCSTATS <HeapObjects> <HeapAlloc>
//	SIZES <qSize> <dSize> <pSize> <cSize> <cSizeQ>   (allocated sizes, pages)
//	OWNER 0x<addr of the cleanup's owner>   (1.24+)
//	WEAKOBJ 0x<addr of the weak pointer's object>   (1.24+)
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

const (
	nQueued = 6
	qBytes  = 40000  // 40960: 5 pages
	dBytes  = 90000  // 90112: 11 pages
	pBytes  = 100000 // 106496: 13 pages
)

type Queued struct {
	payload []byte
	id      int
}

type PanicVal struct {
	payload []byte
}

var (
	quit       = make(chan struct{})
	finStarted = make(chan struct{}, nQueued)
	deferUp    = make(chan struct{})
	panicUp    = make(chan struct{})
	pipefd     [2]int
	out        = make([]byte, 0, 4096)
	rbuf       [1]byte
	gcms       runtime.MemStats
	sink       byte
)

func blockFin(q *Queued) {
	finStarted <- struct{}{}
	<-quit
}

//go:noinline
func makeQueued() {
	for i := 0; i < nQueued; i++ {
		q := &Queued{payload: make([]byte, qBytes), id: i}
		runtime.SetFinalizer(q, blockFin)
	}
}

//go:noinline
func nop() {}

// deferHolder: nine defers (more than the eight open-coded defers a
// function may have): each is a stack-allocated defer record.
//
//go:noinline
func deferHolder() {
	b := make([]byte, dBytes)
	defer func() { sink = b[0] }()
	defer nop()
	defer nop()
	defer nop()
	defer nop()
	defer nop()
	defer nop()
	defer nop()
	defer nop()
	deferUp <- struct{}{}
	<-quit
}

//go:noinline
func panicker() {
	defer func() {
		panicUp <- struct{}{}
		<-quit
	}()
	panic(&PanicVal{payload: make([]byte, pBytes)})
}

func num(v uint64) { out = strconv.AppendUint(out, v, 10) }

func hex(v uintptr) {
	out = append(out, "0x"...)
	out = strconv.AppendUint(out, uint64(v), 16)
}

// spareMs leaves idle threads behind (as retainprog does): no new m after
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
		os.Stderr.WriteString("usage: rootsprog DUMPFILE\n")
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
	go deferHolder()
	<-deferUp
	go panicker()
	<-panicUp
	makeQueued()
	extraSetup()
	runtime.GC()
	<-finStarted // the first finalizer runs and blocks; the rest stay queued
	extraWait()
	runtime.GC()
	runtime.GC()
	debug.FreeOSMemory()
	// No GC from here on: the runtime forces one when none ran for 2 minutes
	// (forcegcperiod), which would free what go-heap must still find (the
	// garbage, the tiny block) when a loaded machine reads this program later
	// than that (issue 37).  The heap stays as the dump and MemStats saw it.
	debug.SetGCPercent(-1)
	runtime.ReadMemStats(&gcms)
	debug.WriteHeapDump(uintptr(fd))
	syscall.Close(fd)
	out = append(out, "GCSTATS "...)
	num(gcms.HeapObjects)
	out = append(out, ' ')
	num(gcms.HeapAlloc)
	out = append(out, "\nSIZES 40960 90112 106496 "...)
	out = append(out, extraSizes...)
	out = append(out, '\n')
	extraReport()
	out = append(out, "READY\n"...)
	syscall.Write(1, out)
	for {
		syscall.Read(pipefd[0], rbuf[:])
	}
}
