// Command stripprog is the target of tests/run-stripped.sh.  It prints the
// run-time addresses of the runtime's memory-profile globals, which it
// reaches through //go:linkname, so that the addresses go-heap recovers
// from a stripped build (no .symtab, no DWARF) can be checked against the
// truth, PIE load bias included:
//
//	ADDR mbuckets 0x...
//	ADDR bbuckets 0x...
//	ADDR xbuckets 0x...
//	ADDR mProfCycle 0x...
//	ADDR MemProfileRate 0x...
//	READY
//
// then it sleeps until killed.  It deliberately imports neither
// runtime/pprof nor calls runtime.BlockProfile / MutexProfile, so that the
// linker drops those readers and the locator must use its fallback anchors
// (runtime.stkbucket); tests/go/heapprog covers the opposite case.
// It does call runtime.MemProfile, so that memory profiling stays enabled.
//
// Go 1.23+ restricts //go:linkname pulls of runtime symbols; build with
// -ldflags=-checklinkname=0 there.
package main

import (
	"fmt"
	"os"
	"runtime"
	"time"
	"unsafe"
)

//go:linkname mbuckets runtime.mbuckets
var mbuckets uintptr

//go:linkname bbuckets runtime.bbuckets
var bbuckets uintptr

//go:linkname xbuckets runtime.xbuckets
var xbuckets uintptr

//go:linkname mProfCycle runtime.mProfCycle
var mProfCycle uint32

var sink [][]byte

func main() {
	runtime.MemProfileRate = 1
	for i := 0; i < 100; i++ {
		sink = append(sink, make([]byte, 64+i))
	}
	runtime.GC()
	var recs [1]runtime.MemProfileRecord
	n, _ := runtime.MemProfile(recs[:], true)
	fmt.Printf("ADDR mbuckets %#x\n", uintptr(unsafe.Pointer(&mbuckets)))
	fmt.Printf("ADDR bbuckets %#x\n", uintptr(unsafe.Pointer(&bbuckets)))
	fmt.Printf("ADDR xbuckets %#x\n", uintptr(unsafe.Pointer(&xbuckets)))
	fmt.Printf("ADDR mProfCycle %#x\n", uintptr(unsafe.Pointer(&mProfCycle)))
	fmt.Printf("ADDR MemProfileRate %#x\n", uintptr(unsafe.Pointer(&runtime.MemProfileRate)))
	fmt.Printf("RECORDS %d\n", n)
	fmt.Println("READY")
	os.Stdout.Sync()
	for {
		time.Sleep(time.Hour)
	}
}
