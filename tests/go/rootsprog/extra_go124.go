//go:build go1.24

package main

import (
	"runtime"
	"syscall"
	"unsafe"
	"weak"
)

const (
	cBytes  = 57000 // 57344: 7 pages
	cqBytes = 24000 // 24576: 3 pages
	nCleanQ = 4
)

type Owner struct{ a, b uint64 }
type CleanPayload struct{ payload []byte }
type WeakObj struct {
	p *WeakObj
	a [5]uint64
}

var (
	owner        *Owner
	weakObj      *WeakObj
	cleanStarted = make(chan struct{}, nCleanQ)
	extraSizes   = "57344 24576"
)

func cleanupNop(p *CleanPayload) { sink = p.payload[0] }

func cleanupBlock(p *CleanPayload) {
	cleanStarted <- struct{}{}
	<-quit
}

//go:noinline
func dropCleanups() {
	for i := 0; i < nCleanQ; i++ {
		o := &Owner{a: uint64(i)}
		runtime.AddCleanup(o, cleanupBlock, &CleanPayload{payload: make([]byte, cqBytes)})
	}
}

//go:noinline
func extraSetup() {
	owner = &Owner{a: 1}
	runtime.AddCleanup(owner, cleanupNop, &CleanPayload{payload: make([]byte, cBytes)})
	weakObj = &WeakObj{}
	_ = weak.Make(weakObj)
	dropCleanups()
}

// extraWait lets a cleanup goroutine (1.25+) start one and block; in 1.24
// the cleanups wait on finq behind the blocked finalizer.  No runtime
// timer (time.After's would fire after MemStats and free its objects):
// raw sleeps.
func extraWait() {
	ts := syscall.Timespec{Nsec: 10e6}
	for i := 0; i < 30 && len(cleanStarted) == 0; i++ {
		syscall.Nanosleep(&ts, nil)
	}
	for i := 0; i < 5; i++ {
		syscall.Nanosleep(&ts, nil)
	}
}

func extraReport() {
	out = append(out, "OWNER "...)
	hex(uintptr(unsafe.Pointer(owner)))
	out = append(out, "\nWEAKOBJ "...)
	hex(uintptr(unsafe.Pointer(weakObj)))
	out = append(out, '\n')
}
