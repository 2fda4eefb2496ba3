// Command retainchurn is the target of tests/run-retained-live.sh: a heap
// with stable parts that go-heap -p retained must get exactly while another
// goroutine allocates and rewrites pointers as fast as it can.
//
//   - main.list, a global linked list of nList *main.Node (16 B): stable;
//   - main.cache, a global map of nCache *main.Val: stable;
//   - main.slots, a global array of nSlots pointers, each to a *main.Slot
//     (48 B) nothing else points at: the churn replaces every slot with a
//     new Slot, over and over (at any instant nSlots Slots are held);
//   - main.bigs, a large pointerful slice (a span of its own) replaced every
//     round, and 200 linked *main.Tmp dropped every round.
//
// It builds the stable parts, runs runtime.GC, prints READY and waits
// quietly; on SIGUSR1 it starts the churn and prints CHURNING.  Standard
// output: "COUNT <what> <n>", READY, CHURNING.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"
)

const (
	nList  = 50000
	nCache = 5000
	nSlots = 2000
)

type Node struct { // 16 B
	next *Node
	v    uint64
}

type Val struct { // 48 B
	p  *Val
	id uint64
	a  [4]uint64
}

type Slot struct { // 48 B
	p *Slot
	a [5]uint64
}

type Tmp struct { // 32 B
	next *Tmp
	a    [3]uint64
}

var (
	list   *Node
	cache  map[uint64]*Val
	slots  [nSlots]*Slot
	bigs   []*Tmp
	rounds uint64
)

func churn() {
	for n := uint64(0); ; n++ {
		for i := range slots {
			s := &Slot{}
			s.a[0] = n
			slots[i] = s
		}
		var h *Tmp
		for j := 0; j < 200; j++ {
			h = &Tmp{next: h}
		}
		b := make([]*Tmp, 16384)
		b[0] = h
		bigs = b
		rounds = n
	}
}

func main() {
	for i := 0; i < nList; i++ {
		list = &Node{next: list, v: uint64(i)}
	}
	cache = make(map[uint64]*Val)
	for i := 0; i < nCache; i++ {
		cache[uint64(i)] = &Val{id: uint64(i)}
	}
	for i := range slots {
		slots[i] = &Slot{}
	}
	runtime.GC()
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR1)
	fmt.Printf("COUNT list %d\nCOUNT cache %d\nCOUNT slots %d\nREADY\n", nList, nCache, nSlots)
	<-c
	go churn()
	fmt.Printf("CHURNING\n")
	for {
		time.Sleep(time.Hour)
	}
}
