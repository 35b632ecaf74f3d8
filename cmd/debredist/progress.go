package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"sync"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/cwriter"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/debredist/debredist/debredist"
)

// progress renders debredist Events: progress bars when stderr is a
// terminal (one per download, one for the packages built), otherwise
// log lines. Events arrive from several goroutines; everything is under mu.
type progress struct {
	log *slog.Logger

	mu      sync.Mutex
	p       *mpb.Progress // nil: plain log lines
	out     *barWriter
	bars    map[string]*mpb.Bar
	overall *mpb.Bar
	total   int64 // packages seen (built or up to date)
	done    int64
	closed  bool
}

// isTerminal reports whether w is a terminal (and TERM is not "dumb").
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && os.Getenv("TERM") != "dumb" && cwriter.IsTerminal(int(f.Fd()))
}

// newProgress starts a renderer on a.stderr; call close before printing
// results.
func (a *app) newProgress() *progress {
	level := slog.LevelInfo
	switch {
	case a.quiet:
		level = slog.LevelWarn
	case a.verbose:
		level = slog.LevelDebug
	}
	pr := &progress{bars: map[string]*mpb.Bar{}}
	var logOut io.Writer = a.stderr
	if !a.quiet && isTerminal(a.stderr) {
		pr.p = mpb.NewWithContext(context.Background(), mpb.WithOutput(a.stderr), mpb.WithWidth(40))
		pr.out = &barWriter{p: pr.p, fallback: a.stderr}
		logOut = pr.out
	}
	pr.log = slog.New(slog.NewTextHandler(logOut, &slog.HandlerOptions{
		Level: level,
		ReplaceAttr: func(groups []string, at slog.Attr) slog.Attr {
			if len(groups) == 0 && at.Key == slog.TimeKey {
				return slog.Attr{} // a CLI's lines need no timestamps
			}
			return at
		},
	}))
	return pr
}

// handle is Options.OnEvent.
func (pr *progress) handle(e debredist.Event) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.closed {
		return
	}
	if pr.p != nil && pr.bar(e) {
		return
	}
	pr.logEvent(e)
}

// bar renders e on the bars; false means it is to be logged instead.
func (pr *progress) bar(e debredist.Event) bool {
	switch e.Kind {
	case debredist.EventFetchStart:
		b := pr.bars[e.Package]
		if b == nil {
			b = pr.p.AddBar(0, mpb.BarRemoveOnComplete(),
				mpb.PrependDecorators(decor.Name(e.Package, decor.WCSyncSpaceR)),
				mpb.AppendDecorators(decor.CountersKibiByte("% .1f / % .1f", decor.WCSyncSpace), decor.Percentage(decor.WCSyncSpace)))
			pr.bars[e.Package] = b
		}
		b.SetTotal(e.Total, false)
		b.SetCurrent(e.Bytes)
		return true
	case debredist.EventFetchBytes:
		if b := pr.bars[e.Package]; b != nil {
			if e.Total > 0 {
				b.SetTotal(e.Total, false)
			}
			b.SetCurrent(e.Bytes)
		}
		return true
	case debredist.EventFetchDone:
		if b := pr.bars[e.Package]; b != nil {
			b.SetTotal(e.Bytes, true)
			delete(pr.bars, e.Package)
		}
		return true
	case debredist.EventFetchFailed:
		if b := pr.bars[e.Package]; b != nil {
			b.Abort(true)
			delete(pr.bars, e.Package)
		}
		return false // and log the failure
	case debredist.EventPlan, debredist.EventBuildStart, debredist.EventBuildDone, debredist.EventUpToDate:
		if pr.overall == nil {
			pr.overall = pr.p.AddBar(0, mpb.BarPriority(1<<30),
				mpb.PrependDecorators(decor.Name("packages", decor.WCSyncSpaceR)),
				mpb.AppendDecorators(decor.CountersNoUnit("%d / %d", decor.WCSyncSpace)))
		}
		switch e.Kind {
		case debredist.EventPlan: // the whole count is known up front
			pr.total = e.Total
		case debredist.EventBuildDone, debredist.EventUpToDate:
			pr.done++
		}
		pr.overall.SetTotal(pr.total, false)
		pr.overall.SetCurrent(pr.done)
		return true
	}
	return false
}

func (pr *progress) logEvent(e debredist.Event) {
	l := pr.log
	switch e.Kind {
	case debredist.EventIndex:
		l.Info("index read", "repo", e.Package, "url", e.URL, "packages", e.Total)
	case debredist.EventWarning:
		attrs := []any{}
		if e.Package != "" {
			attrs = append(attrs, "package", e.Package)
		}
		if e.URL != "" {
			attrs = append(attrs, "url", e.URL)
		}
		l.Warn(e.Message, attrs...)
	case debredist.EventFetchStart:
		l.Info("download", "package", e.Package, "url", e.URL, "size", e.Total)
	case debredist.EventFetchBytes:
		// too many for log lines; bars show them
	case debredist.EventFetchDone:
		l.Info("downloaded", "package", e.Package, "bytes", e.Bytes)
	case debredist.EventFetchRetry:
		l.Warn("retrying download", "package", e.Package, "url", e.URL, "attempt", e.Attempt, "err", e.Err)
	case debredist.EventFetchFailed:
		if errors.Is(e.Err, context.Canceled) {
			l.Debug("download cancelled", "package", e.Package)
			return
		}
		l.Error("download failed", "package", e.Package, "url", e.URL, "err", e.Err)
	case debredist.EventCacheHit:
		l.Debug("cached", "package", e.Package, "bytes", e.Bytes)
	case debredist.EventBuildStart:
		l.Debug("building", "package", e.Package, "debs", e.Total)
	case debredist.EventBuildDone:
		l.Info("built", "package", e.Package, "bytes", e.Bytes)
	case debredist.EventUpToDate:
		l.Info("up to date", "package", e.Package)
	case debredist.EventOutBusy:
		l.Warn(e.Message)
	default:
		l.Debug(string(e.Kind), "package", e.Package, "message", e.Message)
	}
}

// close stops the bars (completing or dropping what is left). Later
// events are ignored. (The counts of a run are in its Result.)
func (pr *progress) close() {
	pr.mu.Lock()
	if pr.closed {
		pr.mu.Unlock()
		return
	}
	pr.closed = true
	p := pr.p
	if p != nil {
		for _, b := range pr.bars {
			b.Abort(true)
		}
		if pr.overall != nil {
			pr.overall.SetTotal(-1, true)
		}
	}
	pr.mu.Unlock()
	if p != nil {
		p.Wait()
		pr.out.done()
	}
}

// barWriter writes log lines above the bars while they run and straight
// to the terminal afterwards.
type barWriter struct {
	mu       sync.Mutex
	p        *mpb.Progress
	fallback io.Writer
	finished bool
}

func (w *barWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	finished := w.finished
	w.mu.Unlock()
	if !finished {
		if n, err := w.p.Write(b); err == nil {
			return n, nil
		}
	}
	return w.fallback.Write(b)
}

func (w *barWriter) done() {
	w.mu.Lock()
	w.finished = true
	w.mu.Unlock()
}
