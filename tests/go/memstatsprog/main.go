// memstatsprog: the oracle of tests/run-memstats.sh (go-heap -p memstats).
//
// It builds a heap (tiny, small and large objects, kept alive), settles it
// (runtime.GC, debug.FreeOSMemory), leaves idle threads behind, then
// stays still on a raw read of FIFO (syscall.Read: nothing allocated
// while go-heap reads it, live or from a gcore core) until the test
// writes a byte to it; released, it prints runtime.MemStats in the lines
// of heap?debug=1's trailer (runtime/pprof writeHeapInternal) and exits.
// Its own heap?debug=1 cannot serve: writing it allocates.
//
//	memstatsprog FIFO before   ReadMemStats at the quiet point, before the
//	                           read: every mcache was just flushed
//	memstatsprog FIFO after    the quiet point leaves a few objects of each
//	                           kind in the Ps' cached spans and tiny blocks
//	                           (what readmemstats_m's flushallmcaches folds
//	                           in); ReadMemStats is the first thing the
//	                           released program does, nothing allocated
//	                           between
//
// stdout: "READY\n" at the quiet point; after the release the trailer's
// lines ("# runtime.MemStats", "# Alloc = ...", ..., "# MaxRSS = ...",
// getrusage's ru_maxrss x 1024, read with the MemStats).
package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"syscall"
)

type small struct {
	a, b *small
	n    [5]int
}

type noscan [40]int64

var (
	keep   []interface{}
	hot    [64]*small
	hotns  [64]*noscan
	hotb   [64]*[3]byte
	hotl   *[40000]byte
	ms     runtime.MemStats
	ru     syscall.Rusage
	rbuf   [1]byte
	sinkMu sync.Mutex
)

func build() {
	for i := 0; i < 2000; i++ {
		keep = append(keep, &small{n: [5]int{i}})
		keep = append(keep, new(noscan))
		b := new([3]byte)
		b[0] = byte(i)
		keep = append(keep, b)
		if i%100 == 0 {
			keep = append(keep, make([]byte, 70000+i))
		}
		if i%3 == 0 {
			keep = append(keep, fmt.Sprintf("s%d", i))
		}
	}
	// garbage: frees for the counters
	for i := 0; i < 5000; i++ {
		_ = make([]byte, 100+i%300)
	}
}

// spareMs leaves idle threads (Ms) behind so that go-heap's stop and
// gcore's do not make the runtime allocate an m afterwards.
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
	if len(os.Args) != 3 || (os.Args[2] != "before" && os.Args[2] != "after") {
		os.Stderr.WriteString("usage: memstatsprog FIFO before|after\n")
		os.Exit(2)
	}
	fd, err := syscall.Open(os.Args[1], syscall.O_RDWR, 0)
	if err != nil {
		panic(err)
	}
	after := os.Args[2] == "after"
	// a reader of the memory profile, so that the linker keeps it on
	// (-p heap -f text's trailer is checked too)
	if len(os.Args) > 3 {
		runtime.MemProfile(nil, true)
	}
	spareMs()
	build()
	runtime.GC()
	runtime.GC()
	debug.FreeOSMemory()
	ready := []byte("READY\n")
	if !after {
		runtime.ReadMemStats(&ms)
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	} else {
		// objects in the Ps' cached spans and tiny blocks
		for i := range hot {
			hot[i] = &small{}
			hotns[i] = new(noscan)
			hotb[i] = new([3]byte)
		}
		hotl = new([40000]byte)
	}
	syscall.Write(1, ready)
	syscall.Read(fd, rbuf[:])
	if after {
		runtime.ReadMemStats(&ms)
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	}
	s := &ms
	w := os.Stdout
	fmt.Fprintf(w, "# runtime.MemStats\n")
	fmt.Fprintf(w, "# Alloc = %d\n", s.Alloc)
	fmt.Fprintf(w, "# TotalAlloc = %d\n", s.TotalAlloc)
	fmt.Fprintf(w, "# Sys = %d\n", s.Sys)
	fmt.Fprintf(w, "# Lookups = %d\n", s.Lookups)
	fmt.Fprintf(w, "# Mallocs = %d\n", s.Mallocs)
	fmt.Fprintf(w, "# Frees = %d\n", s.Frees)

	fmt.Fprintf(w, "# HeapAlloc = %d\n", s.HeapAlloc)
	fmt.Fprintf(w, "# HeapSys = %d\n", s.HeapSys)
	fmt.Fprintf(w, "# HeapIdle = %d\n", s.HeapIdle)
	fmt.Fprintf(w, "# HeapInuse = %d\n", s.HeapInuse)
	fmt.Fprintf(w, "# HeapReleased = %d\n", s.HeapReleased)
	fmt.Fprintf(w, "# HeapObjects = %d\n", s.HeapObjects)

	fmt.Fprintf(w, "# Stack = %d / %d\n", s.StackInuse, s.StackSys)
	fmt.Fprintf(w, "# MSpan = %d / %d\n", s.MSpanInuse, s.MSpanSys)
	fmt.Fprintf(w, "# MCache = %d / %d\n", s.MCacheInuse, s.MCacheSys)
	fmt.Fprintf(w, "# BuckHashSys = %d\n", s.BuckHashSys)
	fmt.Fprintf(w, "# GCSys = %d\n", s.GCSys)
	fmt.Fprintf(w, "# OtherSys = %d\n", s.OtherSys)

	fmt.Fprintf(w, "# NextGC = %d\n", s.NextGC)
	fmt.Fprintf(w, "# LastGC = %d\n", s.LastGC)
	fmt.Fprintf(w, "# PauseNs = %d\n", s.PauseNs)
	fmt.Fprintf(w, "# PauseEnd = %d\n", s.PauseEnd)
	fmt.Fprintf(w, "# NumGC = %d\n", s.NumGC)
	fmt.Fprintf(w, "# NumForcedGC = %d\n", s.NumForcedGC)
	fmt.Fprintf(w, "# GCCPUFraction = %v\n", s.GCCPUFraction)
	fmt.Fprintf(w, "# DebugGC = %v\n", s.DebugGC)
	fmt.Fprintf(w, "# MaxRSS = %d\n", uintptr(ru.Maxrss)*1024)
	runtime.KeepAlive(keep)
	sinkMu.Lock()
	sinkMu.Unlock()
}
