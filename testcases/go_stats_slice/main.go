// go_stats_slice - per-goroutine statistics in one slice, adjacent.
//
// Each worker goroutine counts into its own element of a []stats with
// atomic.AddUint64.  No datum is shared, but two 16-byte elements sit in
// one 64-byte line, which moves between the cores on every add: false
// sharing.  Goroutines are not threads: the runtime moves them between
// OS threads, so one thread may run both workers in turn, and a tool that
// counts by thread sees one thread write both words ("true sharing").
// contend must report false sharing on main.stats written by two
// goroutines, in main.work, with advice in Go (a _ [N]byte pad).
// --padded gives each element 64 bytes: nothing to report, and the same
// work runs several times faster.
//
// usage: go_stats_slice [--padded] [--iters N]   (default 80M per worker)
package main

import (
	"flag"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

type stats struct {
	hits   uint64
	misses uint64
}

type paddedStats struct {
	hits   uint64
	misses uint64
	_      [48]byte
}

const workers = 2

//go:noinline
func work(s *stats, iters int, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; i < iters; i++ {
		atomic.AddUint64(&s.hits, 1)
	}
}

//go:noinline
func workPadded(s *paddedStats, iters int, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; i < iters; i++ {
		atomic.AddUint64(&s.hits, 1)
	}
}

func main() {
	padded := flag.Bool("padded", false, "one 64-byte element per goroutine")
	iters := flag.Int("iters", 80000000, "adds per goroutine")
	flag.Parse()

	var wg sync.WaitGroup
	var total uint64
	start := time.Now()
	if *padded {
		s := make([]paddedStats, workers)
		for i := range s {
			wg.Add(1)
			go workPadded(&s[i], *iters, &wg)
		}
		wg.Wait()
		for i := range s {
			total += s[i].hits
		}
	} else {
		s := make([]stats, workers)
		for i := range s {
			wg.Add(1)
			go work(&s[i], *iters, &wg)
		}
		wg.Wait()
		for i := range s {
			total += s[i].hits
		}
	}
	fmt.Printf("%d adds in %.3f s\n", total, time.Since(start).Seconds())
}
