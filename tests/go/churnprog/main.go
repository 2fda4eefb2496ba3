// churnprog: a short-lived Go process for tests/run-watch-churn.sh.
//
// Usage: churnprog [-life D] [-rename HEX] [-exec-after D|-exec-on-line -exec PATH [ARGS...]]
//
// It sets runtime.MemProfileRate to 4096, prints "READY PID", and
// allocates 64 KiB every 20 ms (keeping the last 64 objects).  With
// -rename it sets its own name (the kernel's comm, PR_SET_NAME on the
// main thread) to the hex-decoded bytes, which may be anything.  With
// -exec it replaces itself (execve) with PATH ARGS... after -exec-after;
// with -exec-on-line, once it has read a line on stdin (the test says
// when: watch has seen it first, however slow the machine); with -life it
// exits after that long.  Otherwise it runs until killed.
package main

import (
	"bufio"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

var keep [64][]byte

func init() {
	// comm is the main thread's name: keep main() on it.
	runtime.LockOSThread()
}

//go:noinline
func alloc64k() []byte { return make([]byte, 64<<10) }

func main() {
	life := flag.Duration("life", 0, "exit after this long (0: never)")
	rename := flag.String("rename", "", "set comm to these hex-encoded bytes")
	execAfter := flag.Duration("exec-after", 0, "exec -exec's program after this long")
	execPath := flag.String("exec", "", "the program to exec (the remaining arguments are its)")
	execOnLine := flag.Bool("exec-on-line", false, "exec once a line is read on stdin (not after -exec-after)")
	flag.Parse()
	told := make(chan struct{})
	if *execOnLine {
		go func() {
			bufio.NewReader(os.Stdin).ReadString('\n')
			close(told)
		}()
	}
	runtime.MemProfileRate = 4096
	if *rename != "" {
		b, err := hex.DecodeString(*rename)
		if err != nil {
			fmt.Fprintln(os.Stderr, "churnprog: -rename:", err)
			os.Exit(2)
		}
		name := append(b, 0)
		if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_NAME,
			uintptr(unsafe.Pointer(&name[0])), 0); e != 0 {
			fmt.Fprintln(os.Stderr, "churnprog: prctl:", e)
			os.Exit(1)
		}
	}
	fmt.Printf("READY %d\n", os.Getpid())
	start := time.Now()
	for n := 0; ; n++ {
		keep[n%len(keep)] = alloc64k()
		time.Sleep(20 * time.Millisecond)
		if *life > 0 && time.Since(start) >= *life {
			return
		}
		ready := time.Since(start) >= *execAfter
		if *execOnLine {
			select {
			case <-told:
				ready = true
			default:
				ready = false
			}
		}
		if *execPath != "" && ready {
			argv := append([]string{*execPath}, flag.Args()...)
			err := syscall.Exec(*execPath, argv, os.Environ())
			fmt.Fprintln(os.Stderr, "churnprog: exec:", err)
			os.Exit(1)
		}
	}
}
