package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/debredist/debredist/debredist/event"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/cwriter"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress renders debredist Events on stderr for a person.
//
// On a terminal one overall bar runs from the first second: the indexes
// being read, then debs and bytes downloaded (with a bar per download in
// flight), then redist packages built. Anywhere else (a pipe, a file, a
// terminal without a size) it prints a line per stage and, while a stage
// runs, a summary line every summaryEvery: never a line per deb unless -v.
//
// Warnings ("debredist: warning: …") are printed once per message, also
// with --quiet; notices ("debredist: note: …", things worth knowing that
// need no action) once, and not with --quiet. Events arrive from several
// goroutines; everything is under mu.
type progress struct {
	w       io.Writer
	verbose bool
	quiet   bool

	a       *app // for firstTime
	mu      sync.Mutex
	stage   string       // "indexes", "fetch", "build"
	indexes []string     // "common r36.5 (512 packages)"
	debs    counter      // debs: in the cache (downloaded or found there) of the fetch plan
	bytes   counter      // bytes of those debs
	cached  int64        // debs found in the cache
	local   bool         // the mirror is a directory: debs are read, not downloaded
	work    counter      // build: bytes of debs of the packages to build, and of those built
	retries int64        // downloads retried
	pkgs    counter      // redist packages built or up to date of the plan
	started time.Time    // of the current stage
	ticker  *time.Ticker // non-terminal summaries; nil on a terminal
	stop    chan struct{}
	closed  bool

	// terminal only
	text    atomic.Pointer[string] // status(), for the bar's decorator (which must not take mu)
	p       *mpb.Progress
	out     *barWriter
	overall *mpb.Bar
	bars    map[string]*mpb.Bar // per download in flight
}

type counter struct{ done, total int64 }

// summaryEvery is how often a stage that runs without a terminal says how
// far it got.
const summaryEvery = 10 * time.Second

// terminalWidth returns the width of w when it is a terminal with a usable
// size (TERM not "dumb"), else 0.
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || os.Getenv("TERM") == "dumb" || !cwriter.IsTerminal(int(f.Fd())) {
		return 0
	}
	width, _, err := cwriter.GetSize(int(f.Fd()))
	if err != nil || width < 40 { // a 0x0 pty, or too narrow for a bar
		return 0
	}
	return width
}

// newProgress starts a renderer on a.stderr; call close before printing
// results.
func (a *app) newProgress() *progress {
	pr := &progress{
		w:       a.stderr,
		verbose: a.verbose,
		quiet:   a.quiet,
		a:       a,
		stage:   "indexes",
		started: time.Now(),
		stop:    make(chan struct{}),
	}
	if !a.quiet && terminalWidth(a.stderr) > 0 {
		pr.p = mpb.NewWithContext(
			context.Background(),
			mpb.WithOutput(a.stderr),
			mpb.WithWidth(32),
			mpb.WithRefreshRate(150*time.Millisecond),
		)
		pr.out = &barWriter{p: pr.p, fallback: a.stderr}
		pr.w = pr.out
		pr.bars = map[string]*mpb.Bar{}
		pr.refresh()
		pr.overall = pr.p.AddBar(0, mpb.BarPriority(1<<30),
			mpb.PrependDecorators(decor.Any(func(decor.Statistics) string { return *pr.text.Load() }, decor.WCSyncSpaceR)),
			mpb.AppendDecorators(decor.Elapsed(decor.ET_STYLE_GO, decor.WCSyncSpace)))
		return pr
	}
	if !a.quiet {
		pr.ticker = time.NewTicker(summaryEvery)
		go pr.summaries()
	}
	return pr
}

// warn prints a warning the user must act on, once per message.
func (a *app) warn(msg string) {
	if a.firstTime("warning", msg) {
		fmt.Fprintf(a.stderr, "debredist: warning: %s\n", msg)
	}
}

// handle is Options.OnEvent.
func (pr *progress) handle(e event.Event) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.closed {
		return
	}
	defer pr.refresh()
	switch e.Kind {
	case event.Warning, event.OutBusy:
		pr.once("warning", withPackage(e))
	case event.Notice:
		if !pr.quiet {
			pr.once("note", withPackage(e))
		}
	case event.Index:
		pr.indexes = append(pr.indexes, fmt.Sprintf("%s (%d packages)", e.Package, e.Total))
		pr.detail("index %s: %d packages", e.URL, e.Total)
	case event.Plan:
		if len(pr.indexes) == 0 { // the debs are a lock's: no index was read
			pr.line("plan: %s, %d redist packages from the lock's debs", e.Message, e.Total)
		} else {
			pr.line("plan: %s, %d redist packages from %s", e.Message, e.Total, strings.Join(pr.indexes, ", "))
		}
		pr.pkgs.total = e.Total
	case event.FetchPlan:
		pr.setStage("fetch")
		pr.debs, pr.bytes, pr.cached = counter{total: e.Total}, counter{total: e.Bytes}, 0
		pr.local = e.URL != "" && !strings.HasPrefix(e.URL, "http://") && !strings.HasPrefix(e.URL, "https://")
		// What will happen, not what did: most debs may be in the cache
		// already (the done line counts them).
		where := ""
		switch {
		case pr.local && e.Message != "":
			where = ": those not in the cache " + e.Message + " are read from the mirror directory " + strings.TrimPrefix(
				e.URL,
				"file://",
			)
		case e.Message != "":
			where = ": those not in the cache " + e.Message + " are downloaded"
		}
		pr.line("fetch: %d debs, %s%s", e.Total, humanBytes(e.Bytes), where)
		if pr.overall != nil {
			pr.overall.SetTotal(max(e.Bytes, 1), false)
			pr.overall.SetCurrent(0)
		}
	case event.CacheHit:
		pr.debs.done++
		pr.cached++
		pr.bytes.done += e.Bytes
		pr.detail("cached %s (%s)", e.Package, humanBytes(e.Bytes))
		pr.setBar()
	case event.FetchStart:
		verb := "download"
		if pr.local {
			verb = "read"
		}
		pr.detail("%s %s %s (%s)", verb, e.Package, e.URL, humanBytes(e.Total))
		if pr.bars != nil && pr.bars[e.Package] == nil {
			pr.bars[e.Package] = pr.p.AddBar(e.Total, mpb.BarRemoveOnComplete(),
				mpb.PrependDecorators(decor.Name("  "+e.Package, decor.WCSyncSpaceR)),
				mpb.AppendDecorators(decor.CountersKibiByte("% .1f / % .1f", decor.WCSyncSpace)))
		}
		if b := pr.bars[e.Package]; b != nil {
			b.SetCurrent(e.Bytes)
		}
	case event.FetchBytes:
		if b := pr.bars[e.Package]; b != nil {
			if e.Total > 0 {
				b.SetTotal(e.Total, false)
			}
			b.SetCurrent(e.Bytes)
		}
	case event.FetchDone:
		pr.debs.done++
		pr.bytes.done += e.Bytes
		verb := "downloaded"
		if pr.local {
			verb = "read into the cache:"
		}
		pr.detail("%s %s (%s)", verb, e.Package, humanBytes(e.Bytes))
		if b := pr.bars[e.Package]; b != nil {
			b.SetTotal(e.Bytes, true)
			delete(pr.bars, e.Package)
		}
		pr.setBar()
	case event.FetchRetry:
		what := e.Package
		if what == "" { // an index
			what = e.URL
		}
		if pr.retries == 0 && !pr.verbose {
			pr.line("retrying failed downloads (%s: %v); the summaries count the retries, -v shows each", what, e.Err)
		}
		pr.retries++
		pr.detail("retrying %s (attempt %d): %v", what, e.Attempt, e.Err)
	case event.FetchFailed:
		if b := pr.bars[e.Package]; b != nil {
			b.Abort(true)
			delete(pr.bars, e.Package)
		}
		if !errors.Is(e.Err, context.Canceled) {
			pr.detail("download of %s failed: %v", e.Package, e.Err) // the run's error says it once, summarized
		}
	case event.BuildStart:
		if pr.stage != "build" {
			pr.endFetch()
			pr.setStage("build")
			pr.line("build: %d redist packages", pr.pkgs.total)
			if pr.overall != nil { // weighted by the bytes of debs each package reads
				pr.overall.SetTotal(max(pr.work.total, 1), false)
				pr.overall.SetCurrent(pr.work.done)
			}
		}
		pr.detail("building %s (%d debs)", e.Package, e.Total)
	case event.BuildPlan:
		pr.work = counter{total: e.Bytes}
	case event.BuildDone, event.UpToDate:
		pr.pkgs.done++
		pr.work.done += e.Total
		if e.Kind == event.BuildDone {
			pr.detail("built %s (%s)", e.Package, humanBytes(e.Bytes))
		} else {
			pr.detail("up to date: %s", e.Package)
		}
		if pr.stage == "build" && pr.overall != nil {
			pr.overall.SetCurrent(pr.work.done)
		}
	}
}

func withPackage(e event.Event) string {
	msg := e.Message
	if e.Err != nil && (e.Kind == event.Warning || e.Kind == event.Notice) {
		msg = inFlags(e.Err) // the message, its options worded as flags
	}
	if e.Package != "" && !strings.Contains(msg, e.Package) {
		msg = e.Package + ": " + msg
	}
	if e.Code != "" {
		msg += " [" + e.Code + "]"
	}
	return msg
}

// once prints a warning or note the first time its message is seen.
func (pr *progress) once(kind, msg string) {
	if pr.a.firstTime(kind, msg) {
		fmt.Fprintf(pr.w, "debredist: %s: %s\n", kind, msg)
	}
}

// line prints a stage line (not on a terminal, where the bar says it, and
// not with --quiet).
func (pr *progress) line(format string, v ...any) {
	if pr.quiet || pr.overall != nil && !pr.verbose {
		return
	}
	fmt.Fprintf(pr.w, "debredist: "+format+"\n", v...)
}

// detail prints a line per deb or package, with -v only.
func (pr *progress) detail(format string, v ...any) {
	if pr.verbose && !pr.quiet {
		fmt.Fprintf(pr.w, "debredist: "+format+"\n", v...)
	}
}

func (pr *progress) setStage(s string) {
	pr.stage, pr.started = s, time.Now()
}

func (pr *progress) setBar() {
	if pr.overall != nil && pr.stage == "fetch" {
		pr.overall.SetCurrent(pr.bytes.done)
	}
}

// gotWord says how a deb not in the cache came: downloaded, or read from
// a directory mirror.
func (pr *progress) gotWord() string {
	if pr.local {
		return "read from the mirror directory"
	}
	return "downloaded"
}

// endFetch says how the download stage ended, in the words of the line
// that started it.
func (pr *progress) endFetch() {
	if pr.stage == "fetch" {
		pr.line(
			"fetch: done: %d debs, %s: %d were in the cache already, %d %s, in %s",
			pr.debs.done,
			humanBytes(pr.bytes.done),
			pr.cached,
			pr.debs.done-pr.cached,
			pr.gotWord(),
			time.Since(pr.started).Round(100*time.Millisecond),
		)
	}
}

// refresh publishes status() for the bar (mu held).
func (pr *progress) refresh() {
	s := pr.status()
	pr.text.Store(&s)
}

// status says how far the run got (mu held).
func (pr *progress) status() string {
	switch pr.stage {
	case "fetch":
		s := fmt.Sprintf(
			"debs %d/%d  %s/%s",
			pr.debs.done,
			pr.debs.total,
			humanBytes(pr.bytes.done),
			humanBytes(pr.bytes.total),
		)
		if pr.retries > 0 {
			s += fmt.Sprintf("  %d retries", pr.retries)
		}
		return s
	case "build":
		return fmt.Sprintf("packages %d/%d", pr.pkgs.done, pr.pkgs.total)
	}
	if len(pr.indexes) == 0 {
		return "reading indexes"
	}
	return "read " + strings.Join(pr.indexes, ", ")
}

// summaries prints the current stage's progress every summaryEvery.
func (pr *progress) summaries() {
	for {
		select {
		case <-pr.stop:
			return
		case <-pr.ticker.C:
		}
		pr.mu.Lock()
		if !pr.closed {
			fmt.Fprintf(pr.w, "debredist: %s… (%s)\n", pr.status(), time.Since(pr.started).Round(time.Second))
		}
		pr.mu.Unlock()
	}
}

// close stops the renderer, saying the last stage is done when the run
// succeeded (err == nil). Later events are ignored.
func (pr *progress) close(err error) {
	pr.mu.Lock()
	if pr.closed {
		pr.mu.Unlock()
		return
	}
	switch {
	case err != nil: // the error says what happened
	case pr.stage == "build":
		pr.line(
			"build: done: %d of %d redist packages in %s",
			pr.pkgs.done,
			pr.pkgs.total,
			time.Since(pr.started).Round(100*time.Millisecond),
		)
	default:
		pr.endFetch()
	}
	pr.closed = true
	p := pr.p
	if p != nil {
		for _, b := range pr.bars {
			b.Abort(true)
		}
		pr.overall.Abort(true)
	}
	if pr.ticker != nil {
		pr.ticker.Stop()
		close(pr.stop)
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
