package deb

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"

	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/decompress"
	"github.com/debredist/debredist/internal/xz"
)

// compressionOf returns the compression suffix of a member name such as
// "data.tar.xz" ("" for "data.tar"), or ok=false if prefix does not match.
func compressionOf(member, prefix string) (suffix string, ok bool) {
	if !strings.HasPrefix(member, prefix) {
		return "", false
	}
	return member[len(prefix):], true
}

// decoder is a decompressed member stream.
type decoder struct {
	r     io.Reader
	close func() error
}

func (d *decoder) Read(p []byte) (int, error) { return d.r.Read(p) }

func (d *decoder) Close() error {
	if d.close == nil {
		return nil
	}
	c := d.close
	d.close = nil
	return c()
}

// systemXZMin is the smallest xz member (compressed bytes) that
// Options.SystemXZ sends to a child `xz -dc`. Measured on the 2-core CI
// machine with xz -6 streams (8 MiB dictionary) of a real shared library:
// 2.5 KB of xz decode in 7.4 ms in process vs 5.9 ms through a child, 41 KB
// in 17.0 vs 8.5 ms, 321 KB in 90 vs 46 ms; a conversion of the sample
// mirror, whose members are all small, took 0.76 s instead of 1.38 s with
// no child at all. Below this size a child saves little or nothing.
const systemXZMin = 32 << 10

// newDecoder returns a decompressing reader for a member of size bytes with
// the given compression suffix, after checking the stream's magic bytes.
func newDecoder(
	ctx context.Context,
	e *fault.DebError,
	suffix string,
	r io.Reader,
	size int64,
	opts *Options,
) (*decoder, error) {
	f, ok := decompress.ForSuffix(suffix)
	if !ok {
		return nil, e.With(fault.DebCompression, fmt.Errorf("unknown compression suffix %q", suffix))
	}
	br := bufio.NewReaderSize(r, 64<<10)
	if err := checkMagic(e, f, br); err != nil {
		return nil, err
	}
	maxWindow := maxWindow(opts.Limits)
	if f == decompress.XZ && opts.SystemXZ && size >= cmp.Or(opts.systemXZMin, systemXZMin) {
		if path, err := exec.LookPath("xz"); err == nil {
			// Refuse a first block over the limit before spawning a child
			// (the in-process reader checks every block header itself).
			head, _ := br.Peek(decompress.HeadSize)
			dict, ok, err := xz.FirstDict(head)
			if err != nil {
				return nil, e.With(fault.DebCompression, fmt.Errorf("xz: %w", err))
			}
			if ok && dict > maxWindow {
				return nil, e.With(fault.DebLimit, fmt.Errorf("xz dictionary size %d exceeds limit %d", dict, maxWindow))
			}
			return newSystemXZ(ctx, path, br, maxWindow)
		}
	}
	rc, err := decompress.Open(f, br, maxWindow, opts.zstdConcurrency())
	if err != nil {
		kind := fault.DebCompression
		if errors.Is(err, decompress.ErrLimit) {
			kind = fault.DebLimit
		}
		return nil, e.With(kind, err)
	}
	return &decoder{r: rc, close: rc.Close}, nil
}

// checkMagic checks that the stream starts with the magic bytes of the
// format its member suffix names (formats without magic pass).
func checkMagic(e *fault.DebError, f decompress.Format, br *bufio.Reader) error {
	magic := f.Magic()
	if magic == nil {
		return nil
	}
	got, err := br.Peek(len(magic))
	var de *fault.DebError
	switch {
	case errors.As(err, &de):
		return err
	case errors.Is(err, io.EOF):
		return e.With(fault.DebTruncated, fmt.Errorf("%s stream too short for magic: %w", f, io.ErrUnexpectedEOF))
	case err != nil:
		return e.With(fault.DebIO, err)
	case !bytes.Equal(got, magic):
		return e.With(fault.DebCompression, fmt.Errorf("member suffix says %s but magic is %x", f, got))
	}
	return nil
}

// systemXZ decodes through an `xz -dc` child process, whose memory limit
// (the largest dictionary allowed plus xz's own 1 MiB) refuses a block
// with a larger dictionary anywhere in the stream.
type systemXZ struct {
	cmd    *exec.Cmd
	in     *inputRecorder
	out    io.ReadCloser
	stderr *capBuffer
	once   sync.Once
	werr   error
	done   bool
}

func newSystemXZ(ctx context.Context, path string, in io.Reader, maxWindow int64) (*decoder, error) {
	cmd := exec.CommandContext(ctx, path, "-dc", "-q", "-T1",
		"--memlimit-decompress="+strconv.FormatInt(maxWindow+1<<20, 10))
	dieWithParent(cmd)
	rec := &inputRecorder{r: in}
	cmd.Stdin = rec
	s := &systemXZ{cmd: cmd, in: rec, stderr: &capBuffer{max: 4096}}
	cmd.Stderr = s.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("xz -dc: %w", err)
	}
	s.out = out
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start xz -dc: %w", err)
	}
	return &decoder{r: s, close: s.Close}, nil
}

func (s *systemXZ) wait() error {
	s.once.Do(func() {
		err := s.cmd.Wait()
		if ierr := s.in.error(); ierr != nil {
			// The member itself failed (cut short, past the end of the
			// deb): that, not xz's view of it, is the cause.
			s.werr = ierr
			return
		}
		if err != nil {
			msg := strings.TrimSpace(s.stderr.String())
			if msg != "" {
				err = fmt.Errorf("xz -dc: %w: %s", err, msg)
			} else {
				err = fmt.Errorf("xz -dc: %w", err)
			}
		}
		s.werr = err
	})
	return s.werr
}

func (s *systemXZ) Read(p []byte) (int, error) {
	if s.done {
		return 0, io.EOF
	}
	n, err := s.out.Read(p)
	if err == io.EOF {
		if werr := s.wait(); werr != nil {
			var e *fault.DebError
			if errors.As(werr, &e) {
				return n, werr
			}
			kind := fault.DebCompression
			if strings.Contains(werr.Error(), "Memory usage limit") {
				kind = fault.DebLimit // a block's dictionary beyond maxWindow
			}
			return n, &fault.DebError{Kind: kind, Err: werr}
		}
		s.done = true
	}
	return n, err
}

// Close kills the child if it still runs and waits for it.
func (s *systemXZ) Close() error {
	if s.cmd.ProcessState == nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
	}
	_ = s.wait()
	return nil
}

// inputRecorder remembers the first error reading the compressed member,
// which exec's stdin copier would otherwise hide behind xz's exit status.
type inputRecorder struct {
	r   io.Reader
	mu  sync.Mutex
	err error
}

func (i *inputRecorder) Read(p []byte) (int, error) {
	n, err := i.r.Read(p)
	if err != nil && err != io.EOF {
		i.mu.Lock()
		if i.err == nil {
			i.err = err
		}
		i.mu.Unlock()
	}
	return n, err
}

func (i *inputRecorder) error() error {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.err
}

// capBuffer keeps the first max bytes written to it.
type capBuffer struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (c *capBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.b.Len(); room > 0 {
		c.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (c *capBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}
