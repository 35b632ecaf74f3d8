package archive

import (
	"errors"
	"sync"
)

// errWriterClosed is returned by writes after Close.
var errWriterClosed = errors.New("archive: write to closed compressor")

// compressFunc compresses one input block, a pure function of its bytes,
// and returns the step that writes the result: the steps run one at a time,
// strictly in input order, and report the write's error. The input block is
// not used once compressFunc returns (it serves a later block).
type compressFunc func(src []byte) (emit func() error)

// job is one block travelling through the pipeline.
type job struct {
	src  []byte
	emit func() error
	done chan struct{}
}

// parallelWriter cuts its input into BlockSize blocks, compresses up to
// workers blocks concurrently with a pure function of the block bytes, and
// emits the results strictly in input order. Because every block is compressed
// independently with fixed settings, the output does not depend on workers.
//
// Memory is bounded: at most 2*workers blocks are in flight (input plus
// compressed output), plus the block being filled. An input block is
// recycled as soon as it is compressed: a finished block waiting for its
// turn holds only its output.
type parallelWriter struct {
	compress compressFunc
	finish   func() error

	workers int
	block   int // bytes per block: BlockSize except in tests
	sem     chan struct{}
	budget  *Budget // shared with other writers; nil: none
	cur     []byte
	full    bool // a whole block was dispatched: the next ones start whole
	pending []*job
	err     error
	closed  bool
}

func newParallelWriter(workers, block int, budget *Budget, compress compressFunc, finish func() error) *parallelWriter {
	if workers < 1 {
		workers = 1
	}
	if block <= 0 {
		block = BlockSize
	}
	return &parallelWriter{
		block:    block,
		compress: compress,
		finish:   finish,
		workers:  workers,
		sem:      make(chan struct{}, workers),
		budget:   budget,
	}
}

// fullBlocks recycles whole input blocks once compressed, one pool per
// block size (BlockSize, or a test's), so that a long archive reuses a few
// instead of growing a new one (by doubling, from 1 MiB) for every block.
var fullBlocks sync.Map // int -> *sync.Pool of *[]byte

func blockPool(n int) *sync.Pool {
	p, _ := fullBlocks.LoadOrStore(n, new(sync.Pool))
	return p.(*sync.Pool)
}

// newBlock returns an empty input block of n bytes' capacity.
func newBlock(n int) []byte {
	if b, ok := blockPool(n).Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return make([]byte, 0, n)
}

// recycle returns a whole input block of n bytes that is no longer used.
func recycle(b []byte, n int) {
	if cap(b) == n {
		b = b[:0]
		blockPool(n).Put(&b)
	}
}

// Budget bounds the blocks in flight (queued or being compressed, input and
// output held in memory) across all Writes that share it, so that several
// archives written at once stay within one memory bound: about
// n x (BlockSize + its compressed size). It never changes output bytes.
type Budget struct{ tokens chan struct{} }

// NewBudget returns a Budget of n blocks (at least 1).
func NewBudget(n int) *Budget {
	return &Budget{tokens: make(chan struct{}, max(n, 1))}
}

// acquire takes a block token, emitting this writer's own finished blocks
// (which returns their tokens) while none is free; with nothing of its own
// in flight it waits for other writers, which never wait on this one.
func (p *parallelWriter) acquire() error {
	if p.budget == nil {
		return nil
	}
	for {
		select {
		case p.budget.tokens <- struct{}{}:
			return nil
		default:
		}
		if len(p.pending) == 0 {
			p.budget.tokens <- struct{}{}
			return nil
		}
		if err := p.emitOldest(); err != nil {
			return err
		}
	}
}

func (p *parallelWriter) release() {
	if p.budget != nil {
		<-p.budget.tokens
	}
}

func (p *parallelWriter) Write(b []byte) (int, error) {
	if p.err != nil {
		return 0, p.err
	}
	if p.closed {
		return 0, errWriterClosed
	}
	n := 0
	for len(b) > 0 {
		switch {
		case p.cur != nil:
		case p.full:
			p.cur = newBlock(p.block)
		default:
			// Small archives never need a whole block: the first grows
			// as data arrives. Idle writers hold no block.
			p.cur = make([]byte, 0, min(len(b), p.block, 1<<20))
		}
		k := min(len(b), p.block-len(p.cur))
		if n := len(p.cur) + k; n > cap(p.cur) {
			// Grow by doubling, never beyond one block.
			c := make([]byte, len(p.cur), min(p.block, max(n, 2*cap(p.cur))))
			copy(c, p.cur)
			p.cur = c
		}
		p.cur = append(p.cur, b[:k]...)
		b = b[k:]
		n += k
		if len(p.cur) == p.block {
			if err := p.dispatch(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// dispatch hands the current block to a worker and, when the queue is full,
// emits the oldest finished block.
func (p *parallelWriter) dispatch() error {
	if err := p.acquire(); err != nil {
		return err
	}
	j := &job{src: p.cur, done: make(chan struct{})}
	p.full = p.full || len(p.cur) == p.block
	p.cur = nil
	go func() {
		p.sem <- struct{}{}
		j.emit = p.compress(j.src)
		<-p.sem
		recycle(j.src, p.block)
		j.src = nil
		close(j.done)
	}()
	p.pending = append(p.pending, j)
	for len(p.pending) >= 2*p.workers {
		if err := p.emitOldest(); err != nil {
			return err
		}
	}
	return nil
}

func (p *parallelWriter) emitOldest() error {
	j := p.pending[0]
	p.pending[0] = nil
	p.pending = p.pending[1:]
	<-j.done
	defer p.release()
	if err := j.emit(); err != nil {
		p.err = err
		return err
	}
	return nil
}

// Close flushes the partial block, waits for all blocks and writes the
// format trailer. It does not close the underlying writer.
func (p *parallelWriter) Close() error {
	if p.closed {
		return p.err
	}
	p.closed = true
	if p.err != nil {
		p.drain()
		return p.err
	}
	if len(p.cur) > 0 {
		if err := p.dispatch(); err != nil {
			p.drain()
			return err
		}
	}
	for len(p.pending) > 0 {
		if err := p.emitOldest(); err != nil {
			p.drain()
			return err
		}
	}
	if p.finish != nil {
		if err := p.finish(); err != nil {
			p.err = err
			return err
		}
	}
	return nil
}

// abort stops the pipeline after a failure upstream: in-flight blocks are
// waited for but nothing more is written.
func (p *parallelWriter) abort() {
	p.closed = true
	p.drain()
}

// drain waits for in-flight workers so no goroutine outlives Close.
func (p *parallelWriter) drain() {
	for _, j := range p.pending {
		<-j.done
		p.release()
	}
	p.pending = nil
}
