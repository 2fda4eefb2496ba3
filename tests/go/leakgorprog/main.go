// Command leakgorprog is the target of go-heap's -p goroutineleak test
// (tests/run-goroutineleak.sh).  It leaks goroutines of every kind the Go
// runtime's leak detector knows (a channel receive and send on a channel
// nothing else holds, a select, sync.Mutex, sync.RWMutex's Lock and RLock,
// sync.WaitGroup, sync.Cond) and parks others that only look leaked: on a
// global's channel, on a locked global mutex, on a channel held by a
// goroutine itself waiting on a global, on one held by a goroutine in a
// read(2) system call, on one held by a goroutine in time.Sleep, on Conds a
// global holds (through a pointer, in place).
//
// It prints "LEAK GOID KIND 0xW[,0xW]" for every goroutine it leaked (the
// addresses: what it waits on), "WAIT GOID KIND" for the look-alikes, then
// "READY", and then reads commands on stdin, one a line:
//
//	profile FILE   pprof.Lookup("goroutineleak").WriteTo(FILE, 1) (Go 1.27,
//	               1.26 with GOEXPERIMENT=goroutineleakprofile), or the
//	               line "NOPROFILE" in FILE when the release has none
//	traceback FILE the same with debug=2
//	quit
//
// With -dump FILE it writes debug.WriteHeapDump(FILE) once every goroutine
// is parked, before READY (tests/heapdump.py --leakheld: the bytes the
// leaks hold, from the dump alone).
//
// With -hold, main sleeps at the end of stdin instead of returning.
//
// With -select, main waits in select {} after READY and another goroutine
// reads the commands (the runtime's record of goroutine 1 in select {}).
//
// Reading the profile runs the leak GC in the program (the leaked
// goroutines turn _Gleaked): the test reads go-heap first.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

var (
	gch   = make(chan int)                // a global's channel
	gch2  = make(chan int)                // the global the holder waits on
	gmu   sync.Mutex                      // a locked global mutex
	gcond = sync.NewCond(new(sync.Mutex)) // a Cond a global points to
	gcv   sync.Cond                       // a global's Cond
	ids   = make(chan string, 64)
	pipeW *os.File // keeps the read(2) goroutine's pipe open
)

var bufSize = 4096

// -hold: at the end of stdin main sleeps (tests/run-goroutineleak-arm64.sh
// runs it under qemu with stdin /dev/null until SIGABRT writes its core)
var hold bool

type lockedThing struct {
	sync.Mutex
	pad [64]byte
}

func goid() int {
	var b [64]byte
	n := runtime.Stack(b[:], false)
	f := strings.Fields(string(b[:n]))
	id, _ := strconv.Atoi(f[1])
	return id
}

// report prints "TAG GOID KIND", and for a leak the addresses of what it
// waits on (its channels; its Mutex's, RWMutex's, WaitGroup's or Cond's
// object), "0xW[,0xW]": tests/heapdump.py --leakheld's input.
func report(tag, kind string, waits ...any) {
	s := fmt.Sprintf("%s %d %s", tag, goid(), kind)
	for i, w := range waits {
		sep := ","
		if i == 0 {
			sep = " "
		}
		s += fmt.Sprintf("%s%p", sep, w)
	}
	ids <- s
}

// Each leak in a function of its own (not inlined): main's frame holds
// nothing of it.

//go:noinline
func leakRecv() {
	ch := make(chan int)
	go func() {
		buf := make([]byte, bufSize) // held by the leaked frame alone
		report("LEAK", "chanrecv", ch)
		<-ch
		runtime.KeepAlive(buf)
	}()
}

//go:noinline
func leakSend() {
	ch := make(chan int)
	go func() {
		report("LEAK", "chansend", ch)
		ch <- 1
	}()
}

//go:noinline
func leakSelect() {
	a, b := make(chan int), make(chan string)
	go func() {
		report("LEAK", "select", a, b)
		select {
		case <-a:
		case b <- "x":
		}
	}()
}

//go:noinline
func leakMutex() {
	// (a Mutex alone is a tiny allocation: a P's current tiny block is
	// a root, and the runtime would see it held)
	mu := new(lockedThing)
	mu.Lock()
	go func() {
		report("LEAK", "mutex", mu)
		mu.Lock()
	}()
}

//go:noinline
func leakRWMutex() {
	rw := new(sync.RWMutex)
	rw.Lock()
	go func() {
		report("LEAK", "rwmutex.rlock", rw)
		rw.RLock()
	}()
	rw2 := new(sync.RWMutex)
	rw2.RLock()
	go func() {
		report("LEAK", "rwmutex.lock", rw2)
		rw2.Lock()
	}()
}

//go:noinline
func leakWaitGroup() {
	wg := new(sync.WaitGroup)
	wg.Add(1)
	go func() {
		report("LEAK", "waitgroup", wg)
		wg.Wait()
	}()
}

//go:noinline
func leakCond() {
	c := sync.NewCond(new(sync.Mutex))
	go func() {
		c.L.Lock()
		report("LEAK", "cond", c)
		c.Wait()
	}()
}

//go:noinline
func lookAlikes() {
	go func() {
		report("WAIT", "global-chan")
		<-gch
	}()
	go func() {
		report("WAIT", "global-mutex")
		gmu.Lock()
	}()
	// a channel held by a goroutine itself waiting on a global
	held := make(chan int)
	go func() {
		report("WAIT", "held-by-global-waiter")
		<-held
	}()
	go func() {
		report("WAIT", "global-waiter")
		<-gch2
		held <- 1
	}()
	// one held by a goroutine in a read(2) system call
	r, w, err := os.Pipe()
	if err != nil {
		panic(err)
	}
	pipeW = w
	fd := int(r.Fd()) // blocking mode: read(2) blocks in the kernel
	held2 := make(chan int)
	go func() {
		report("WAIT", "held-by-syscall")
		<-held2
	}()
	go func() {
		report("WAIT", "syscall-read")
		var b [1]byte
		syscall.Read(fd, b[:])
		held2 <- 1
		runtime.KeepAlive(r)
	}()
	// Conds a global holds: a pointer to one, and one in place
	go func() {
		gcond.L.Lock()
		report("WAIT", "global-cond")
		gcond.Wait()
	}()
	gcv.L = new(sync.Mutex)
	go func() {
		gcv.L.Lock()
		report("WAIT", "global-cond-value")
		gcv.Wait()
	}()
	// one held by a goroutine in time.Sleep
	held3 := make(chan int)
	go func() {
		report("WAIT", "held-by-sleeper")
		<-held3
	}()
	go func() {
		report("WAIT", "sleep")
		time.Sleep(24 * time.Hour)
		held3 <- 1
	}()
}

func writeProfile(path string, debugLevel int) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Println("ERR", err)
		return
	}
	defer f.Close()
	p := pprof.Lookup("goroutineleak")
	if p == nil {
		fmt.Fprintln(f, "NOPROFILE")
		return
	}
	if err := p.WriteTo(f, debugLevel); err != nil {
		fmt.Println("ERR", err)
	}
}

func main() {
	sel := flag.Bool("select", false, "main waits in select {}, the commands are read by another goroutine")
	dump := flag.String("dump", "", "write debug.WriteHeapDump to this file at the quiet point, before READY")
	flag.BoolVar(&hold, "hold", false, "at the end of stdin, sleep instead of exiting")
	flag.Parse()
	debug.SetGCPercent(-1)
	gmu.Lock()
	steps := []func(){leakRecv, leakSend, leakSelect, leakMutex,
		leakRWMutex, leakWaitGroup, leakCond, lookAlikes}
	want := 0
	for _, f := range steps {
		f()
	}
	want = 8 + 10
	for i := 0; i < want; i++ {
		fmt.Println(<-ids)
	}
	// every goroutine parked: wait until none but main is runnable or
	// running (a busy machine may take longer than a fixed sleep)
	settle()
	if *dump != "" {
		f, err := os.Create(*dump)
		if err != nil {
			fmt.Println("ERR", err)
			os.Exit(1)
		}
		debug.WriteHeapDump(f.Fd())
		f.Close()
	}
	fmt.Println("READY", os.Getpid())
	if *sel {
		// the runtime counts goroutine 1 in select {} as leaked but
		// writes no stack for it: an empty "1 @" record
		go commands()
		select {}
	}
	commands()
}

// settle returns once every other goroutine has been waiting (no
// "[runnable" or "[running" in runtime.Stack's headers) in two looks 50 ms
// apart, after 200 ms at least and 30 s at most.
func settle() {
	buf := make([]byte, 256<<10)
	quiet := 0
	for t := 0; t < 600 && quiet < 2; t++ {
		time.Sleep(50 * time.Millisecond)
		n := runtime.Stack(buf, true)
		busy := false
		for i, l := range strings.Split(string(buf[:n]), "\n") {
			if i > 0 && strings.HasPrefix(l, "goroutine ") &&
				(strings.Contains(l, "[runnable") || strings.Contains(l, "[running")) {
				busy = true
			}
		}
		if busy || t < 3 {
			quiet = 0
		} else {
			quiet++
		}
	}
}

func commands() {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 2 && f[0] == "profile":
			writeProfile(f[1], 1)
			fmt.Println("DONE")
		case len(f) == 2 && f[0] == "traceback":
			writeProfile(f[1], 2)
			fmt.Println("DONE")
		case len(f) == 1 && f[0] == "quit":
			os.Exit(0)
		}
	}
	if hold {
		time.Sleep(1 << 62)
	}
}
