package debredist

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/debredist/debredist/debredist/event"
	"github.com/debredist/debredist/debredist/verify"
	"github.com/debredist/debredist/internal/publish"
	"github.com/debredist/debredist/internal/testutil"
)

// cpA copies an OUT preserving symlinks and hardlinks.
func cpA(t *testing.T, src, dst string) {
	t.Helper()
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -a: %v: %s", err, out)
	}
}

// commitOnly keeps the commit-stage tests' conversions small: four
// archives in three products (two in cuda) exercise every kind of commit
// step (place, link, switch) in a fraction of a full JetPack's time.
var commitOnly = []string{"--only", "cuda_cudart,libcublas,cudnn,tensorrt"}

// runConvert runs the CLI on commitOnly with a release date override and,
// when killAt is set, the commit-stage kill switch; it reports whether the
// process was killed.
func runConvert(t *testing.T, bin, out, cache, epoch string, killAt int) (string, bool) {
	t.Helper()
	return runKilled(t, bin, out, cache, killAt, []string{"SOURCE_DATE_EPOCH=" + epoch}, commitOnly...)
}

func verifyOK(t *testing.T, what, out string) {
	t.Helper()
	rep, err := verify.Dir(context.Background(), out)
	if err == nil {
		err = rep.Err()
	}
	if err != nil {
		t.Errorf("%s: OUT does not verify: %v", what, err)
	}
}

// TestRebuildKilledInCommitStage: OUT holds a verified conversion; a
// rebuild whose every archive changes (another release date: same names,
// other bytes) is killed with SIGKILL at many steps of the commit stage.
// After each kill (at a sample of the steps, or at every step with
// DEBREDIST_LONG_TESTS=1) OUT is byte for byte the old output or the new
// one, and verifies; a rerun completes it to the new one and leaves one generation.
func TestRebuildKilledInCommitStage(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip(
			"a loop of CLI runs SIGKILLed in the commit stage: skipped with -short (the in-process interruption tests still " +
				"run)",
		)
	}
	bin := buildCLI(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	const oldEpoch, newEpoch = "1700000000", "1710000000"
	oldOut := filepath.Join(dir, "old")
	runConvert(t, bin, oldOut, cache, oldEpoch, 0)
	oldSnap := snapshot(t, oldOut)
	newOut := filepath.Join(dir, "new")
	cpA(t, oldOut, newOut)
	log, _ := runConvert(t, bin, newOut, cache, newEpoch, 1<<30)
	newSnap := snapshot(t, newOut)
	if maps.Equal(oldSnap, newSnap) {
		t.Fatal("the rebuild changed nothing; the test needs archives whose bytes change")
	}
	steps := len(regexp.MustCompile(`commit step \d+:`).FindAllString(log, -1))
	if steps < 10 {
		t.Fatalf("only %d commit steps:\n%s", steps, log)
	}
	// Every step with DEBREDIST_LONG_TESTS=1; otherwise the first, one in
	// the middle and the last two (the switch).
	points := []int{1, steps / 2, steps - 1, steps}
	if testutil.Long() {
		points = nil
		for n := 1; n <= steps; n++ {
			points = append(points, n)
		}
	}
	tried, sawOld, sawNew := 0, 0, 0
	for _, n := range points {
		what := fmt.Sprintf("killed at commit step %d of %d", n, steps)
		work := filepath.Join(dir, fmt.Sprintf("k%d", n))
		cpA(t, oldOut, work)
		if _, killed := runConvert(t, bin, work, cache, newEpoch, n); !killed {
			t.Fatalf("%s: the run was not killed", what)
		}
		tried++
		switch got := snapshot(t, work); {
		case maps.Equal(got, oldSnap):
			sawOld++
		case maps.Equal(got, newSnap):
			sawNew++
		default:
			sameSnapshot(t, what+" (neither old nor new; compared with new)", newSnap, got)
		}
		verifyOK(t, what, work)
		runConvert(t, bin, work, cache, newEpoch, 0)
		sameSnapshot(t, what+", then rerun", newSnap, snapshot(t, work))
		gens, _ := filepath.Glob(filepath.Join(work, publish.GenDir, "*"))
		if len(gens) != 2 { // current and its generation
			t.Errorf("%s, then rerun: %s holds %v", what, publish.GenDir, gens)
		}
		testutil.Must(t, os.RemoveAll(work))
	}
	t.Logf("%d kill points: OUT was the old output %d times, the new one %d times", tried, sawOld, sawNew)
	if sawOld == 0 || sawNew == 0 {
		t.Errorf("kill points saw old %d and new %d times: want both", sawOld, sawNew)
	}
}

// TestMigrateOutWithoutGenerations: an OUT whose product directories are
// real directories (written by an earlier debredist) is switched to
// generations, each product in one exchange, and verifies; killed at steps
// of that migration it is the old or the new output.
func TestMigrateOutWithoutGenerations(t *testing.T) {
	t.Parallel()
	bin := buildCLI(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	gen := filepath.Join(dir, "gen")
	runConvert(t, bin, gen, cache, "1700000000", 0)
	// The layout of earlier versions: real directories, no .debredist.
	legacy := filepath.Join(dir, "legacy")
	if out, err := exec.Command("cp", "-rL", gen, legacy).CombinedOutput(); err != nil {
		t.Fatalf("cp -rL: %v: %s", err, out)
	}
	testutil.Must(t, os.RemoveAll(filepath.Join(legacy, publish.GenDir)))
	if st, err := os.Lstat(filepath.Join(legacy, "cuda")); err != nil || !st.IsDir() {
		t.Fatalf("legacy OUT: cuda is not a directory: %v", err)
	}
	verifyOK(t, "legacy OUT", legacy)
	oldSnap := snapshot(t, legacy)
	want := filepath.Join(dir, "want")
	runConvert(t, bin, want, cache, "1710000000", 0)
	newSnap := snapshot(t, want)

	// Killed during the migration (and at the first step after it), OUT
	// is the old output or the new one, verifies, and a rerun completes it.
	probe := filepath.Join(dir, "probe")
	cpA(t, legacy, probe)
	log, _ := runConvert(t, bin, probe, cache, "1710000000", 1<<30)
	steps := regexp.MustCompile(`commit step (\d+): (.*)`).FindAllStringSubmatch(log, -1)
	var points []int
	var linked []int
	for i, m := range steps {
		switch {
		case m[2] == "migration: current set":
			points = append(points, i+1)
		case strings.HasPrefix(m[2], "migration: linked "):
			linked = append(linked, i+1)
		}
	}
	if len(linked) < 3 {
		t.Fatalf("the migration linked %d products, want at least 3:\n%s", len(linked), log)
	}
	points = append(points, linked[len(linked)-1], linked[len(linked)-1]+1)
	if testutil.Long() {
		points = append(points, linked[:len(linked)-1]...)
	}
	for _, n := range points {
		what := fmt.Sprintf("migration killed at commit step %d (%s)", n, steps[n-1][2])
		work := filepath.Join(dir, fmt.Sprintf("m%d", n))
		cpA(t, legacy, work)
		if _, killed := runConvert(t, bin, work, cache, "1710000000", n); !killed {
			t.Fatalf("%s: the run was not killed", what)
		}
		if got := snapshot(t, work); !maps.Equal(got, oldSnap) && !maps.Equal(got, newSnap) {
			sameSnapshot(t, what+" (neither old nor new; compared with old)", oldSnap, got)
		}
		verifyOK(t, what, work)
		runConvert(t, bin, work, cache, "1710000000", 0)
		sameSnapshot(t, what+", then rerun", newSnap, snapshot(t, work))
		testutil.Must(t, os.RemoveAll(work))
	}

	runConvert(t, bin, legacy, cache, "1710000000", 0)
	verifyOK(t, "migrated OUT", legacy)
	for _, p := range []string{"cuda", "cudnn", "tensorrt"} {
		if l, err := os.Readlink(filepath.Join(legacy, p)); err != nil || !strings.HasPrefix(l, publish.GenDir+"/") {
			t.Errorf("%s: not a link into %s after the migration: %q %v", p, publish.GenDir, l, err)
		}
	}
	sameSnapshot(t, "migrated OUT", newSnap, snapshot(t, legacy))

	// A rerun with the same inputs is a no-op: no new generation.
	cur := filepath.Join(legacy, publish.GenDir, publish.Current)
	before, _ := os.Readlink(cur)
	runConvert(t, bin, legacy, cache, "1710000000", 0)
	if after, _ := os.Readlink(cur); after != before || before == "" {
		t.Errorf("a no-op rerun switched %s from %q to %q", cur, before, after)
	}
}

// TestOutSpelledUncleaned: "DIR/./out/" names the same OUT as "DIR/out": a
// rerun is a no-op (no new generation), and verify reports the output's
// own paths, never the generation directory behind them.
func TestOutSpelledUncleaned(t *testing.T) {
	e := convertedBaseline(t)
	gens := func() []string {
		m, _ := filepath.Glob(filepath.Join(e.opts.Build.Out, publish.GenDir, "*"))
		return m
	}
	before := gens()
	o := e.opts
	o.Build.Out = filepath.Dir(e.opts.Build.Out) + "/./" + filepath.Base(e.opts.Build.Out) + "/"
	res, err := Convert(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range res.Packages {
		if !p.UpToDate {
			t.Errorf("%s rebuilt on a rerun into %s", p.PName, o.Build.Out)
		}
	}
	if after := gens(); !slices.Equal(after, before) {
		t.Errorf("rerun into %s published a new generation: %v -> %v", o.Build.Out, before, after)
	}
	rep, err := verify.Dir(context.Background(), o.Build.Out)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rep.Manifests) == 0 {
		t.Fatal("verify found no manifest")
	}
	for _, m := range rep.Manifests {
		if strings.Contains(m, publish.GenDir) {
			t.Errorf("verify %s reports %s, a path inside the generation directory", o.Build.Out, m)
		}
	}
}

// TestOwnEntriesNeverFollowed: OUT/.debredist or OUT's mutex file planted
// as a symlink to a victim directory makes convert fail before it writes,
// prunes or creates anything there; a symlink planted among the products
// is neither followed by verify (a problem naming it) nor cloned.
func TestOwnEntriesNeverFollowed(t *testing.T) {
	victimFiles := func(t *testing.T, dir string) []string {
		var got []string
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && p != dir {
				rel, _ := filepath.Rel(dir, p)
				got = append(got, rel)
			}
			return nil
		})
		testutil.Must(t, err)
		return got
	}
	for _, name := range []string{publish.GenDir, publish.MutexFile} {
		t.Run(name, func(t *testing.T) {
			e := convertedBaseline(t)
			victim := t.TempDir()
			testutil.Must(t, os.WriteFile(filepath.Join(victim, "file1"), []byte("keep"), 0o644))
			testutil.Must(t, os.Mkdir(filepath.Join(victim, "dir"), 0o755))
			target := filepath.Join(victim, "dir")
			if name == publish.MutexFile {
				target = filepath.Join(victim, "created")
			}
			p := filepath.Join(e.opts.Build.Out, name)
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
			before := victimFiles(t, victim)
			o := e.opts
			o.Build.MTime = time.Unix(1710000000, 0) // every archive changes
			_, err := Convert(context.Background(), o)
			if err == nil || !strings.Contains(err.Error(), "symbolic link") {
				t.Errorf("convert with %s a symlink: err = %v, want a refusal naming the link", name, err)
			}
			if after := victimFiles(t, victim); !slices.Equal(after, before) {
				t.Errorf("the victim directory changed: %v -> %v", before, after)
			}
		})
	}
	t.Run("product link", func(t *testing.T) {
		e := convertedBaseline(t)
		elsewhere := t.TempDir()
		cpA(t, filepath.Join(e.opts.Build.Out, "cuda"), filepath.Join(elsewhere, "cuda"))
		if err := os.Symlink(filepath.Join(elsewhere, "cuda"), filepath.Join(e.opts.Build.Out, "evil")); err != nil {
			t.Fatal(err)
		}
		rep, err := verify.Dir(context.Background(), e.opts.Build.Out)
		if err != nil {
			t.Fatal(err)
		}
		var found bool
		for _, p := range rep.Problems {
			if strings.HasPrefix(p.Path, "evil/") {
				t.Errorf("verify followed a foreign link: %v", p)
			}
			found = found || p.Path == "evil" && strings.Contains(p.Error(), "did not write")
		}
		for _, m := range rep.Manifests {
			if strings.HasPrefix(m, "evil/") {
				t.Errorf("verify took %s from outside OUT", m)
			}
		}
		if !found {
			t.Errorf("verify does not report the foreign link: %v", rep.Problems)
		}
		o := e.opts
		o.Build.MTime = time.Unix(1710000000, 0) // every archive changes: a new generation
		if _, err := Convert(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		gen, _ := filepath.Glob(filepath.Join(e.opts.Build.Out, publish.GenDir, "gen-*", "evil"))
		if len(gen) > 0 {
			t.Errorf("convert cloned the foreign link's target into %v", gen)
		}
	})
}

// runKilled runs the CLI convert of JetPack 6 with extra environment and
// args, killed at commit step killAt (0: not killed); it returns the log
// and whether the process was killed.
func runKilled(t *testing.T, bin, out, cache string, killAt int, env []string, args ...string) (string, bool) {
	t.Helper()
	cmd := convertCmd(bin, out, cache, args...)
	cmd.Env = append(cmd.Env, env...)
	if killAt > 0 {
		cmd.Env = append(cmd.Env, fmt.Sprintf("DEBREDIST_TEST_KILL_AT=%d", killAt))
	}
	o, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled() {
		return string(o), true
	}
	if err != nil {
		t.Fatalf("convert %s: %v\n%s", out, err, o)
	}
	return string(o), false
}

// allLinksResolve fails for any symbolic link at OUT's top level that does
// not resolve.
func allLinksResolve(t *testing.T, what, out string) {
	t.Helper()
	ents, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Type()&fs.ModeSymlink != 0 {
			if _, err := os.Stat(filepath.Join(out, e.Name())); err != nil {
				t.Errorf("%s: %s does not resolve: %v", what, e.Name(), err)
			}
		}
	}
}

// TestProductAddingRebuildKilled: OUT holds only cuda_cudart; a rebuild
// that adds libcublas, cudnn and tensorrt (two new products) is killed at
// commit steps (every one with DEBREDIST_LONG_TESTS=1). After every kill
// each entry of OUT resolves; OUT verifies, or (killed between the switch
// and a new product's link) verify names exactly the products left
// unlinked, as the recorded steps place the kill; a rerun completes it to
// the uninterrupted output.
func TestProductAddingRebuildKilled(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a loop of CLI runs SIGKILLed in the commit stage: skipped with -short")
	}
	bin := buildCLI(t)
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	oldOut := filepath.Join(dir, "old")
	runKilled(t, bin, oldOut, cache, 0, nil, "--only", "cuda_cudart")
	newOut := filepath.Join(dir, "new")
	cpA(t, oldOut, newOut)
	log, _ := runKilled(t, bin, newOut, cache, 1<<30, nil, commitOnly...)
	newSnap := snapshot(t, newOut)
	steps := regexp.MustCompile(`commit step (\d+): (.*)`).FindAllStringSubmatch(log, -1)
	var linkSteps []int
	switched := 0 // the step number of "switched"
	for i, s := range steps {
		if strings.HasPrefix(s[2], "linked ") {
			linkSteps = append(linkSteps, i+1)
		}
		if s[2] == "switched" {
			switched = i + 1
		}
	}
	if len(linkSteps) != 2 || switched == 0 || switched > linkSteps[0] {
		t.Fatalf("want \"switched\", then 2 link steps (cudnn, tensorrt) in:\n%s", log)
	}
	// unlinked is what a kill at step n leaves without its link: a step
	// runs its action, then may kill, so killed at or after "switched" and
	// before "linked X" leaves X unlinked.
	unlinked := func(n int) []string {
		var ps []string
		for _, k := range linkSteps {
			if switched <= n && n < k {
				ps = append(ps, strings.TrimPrefix(steps[k-1][2], "linked "))
			}
		}
		return ps
	}
	points := append([]int{1, len(steps) / 2, switched}, linkSteps...)
	points = append(points, linkSteps[len(linkSteps)-1]+1, len(steps))
	if testutil.Long() {
		points = nil
		for n := 1; n <= len(steps); n++ {
			points = append(points, n)
		}
	}
	unlinkedSeen := 0
	for _, n := range slices.Compact(slices.Sorted(slices.Values(points))) {
		what := fmt.Sprintf("killed at commit step %d of %d (%s)", n, len(steps), steps[n-1][2])
		work := filepath.Join(dir, fmt.Sprintf("k%d", n))
		cpA(t, oldOut, work)
		if _, killed := runKilled(t, bin, work, cache, n, nil, commitOnly...); !killed {
			t.Fatalf("%s: the run was not killed", what)
		}
		allLinksResolve(t, what, work)
		rep, err := verify.Dir(context.Background(), work)
		if err != nil {
			t.Fatal(err)
		}
		var gotUnlinked []string
		for _, p := range rep.Problems {
			if strings.Contains(p.Error(), "has no link in OUT: a run was killed after it switched (rerun convert to link it)") {
				gotUnlinked = append(gotUnlinked, p.Path)
				continue
			}
			t.Errorf("%s: %v", what, p)
		}
		wantUnlinked := unlinked(n)
		slices.Sort(gotUnlinked)
		slices.Sort(wantUnlinked)
		if !slices.Equal(gotUnlinked, wantUnlinked) {
			t.Errorf("%s: verify names %q unlinked, want %q", what, gotUnlinked, wantUnlinked)
		}
		unlinkedSeen += len(wantUnlinked)
		for _, a := range rep.Artifacts {
			if len(a.Problems) > 0 {
				t.Errorf("%s: %s: %v", what, a.Path, a.Problems)
			}
		}
		runKilled(t, bin, work, cache, 0, nil, commitOnly...)
		sameSnapshot(t, what+", then rerun", newSnap, snapshot(t, work))
		allLinksResolve(t, what+", then rerun", work)
		verifyOK(t, what+", then rerun", work)
		testutil.Must(t, os.RemoveAll(work))
	}
	if unlinkedSeen == 0 {
		t.Errorf("no kill point fell between the switch and a new product's link")
	}
}

// TestVerifyOwnLinks: verify names each state of debredist's own links a
// kill can leave, never calling them links debredist did not write.
func TestVerifyOwnLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	o := Options{
		Source:  Source{Mirror: sampleMirror, CacheDir: filepath.Join(dir, "cache")},
		Release: Release{JetPack: "6"},
		Build:   Build{Out: out, Only: []string{"cuda_cudart", "cudnn"}},
	}
	if _, err := Convert(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	// A dangling link of debredist's (as older versions left before the switch).
	if err := os.Symlink(publish.ProductLink("tensorrt"), filepath.Join(out, "tensorrt")); err != nil {
		t.Fatal(err)
	}
	// A product of the current output without its link (killed after the switch).
	if err := os.Remove(filepath.Join(out, "cudnn")); err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Dir(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, p := range rep.Problems {
		msgs = append(msgs, p.Error())
	}
	got := strings.Join(msgs, "\n")
	for _, want := range []string{
		"tensorrt: a product link of debredist's (to .debredist/current/tensorrt) whose product the current output lacks",
		"cudnn: product cudnn is in the current output (.debredist/current/cudnn) but has no link in OUT",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("verify lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "did not write") || len(msgs) != 2 {
		t.Errorf("verify problems:\n%s", got)
	}
	// A no-op rerun repairs both, and says so.
	var notes []string
	o.OnEvent = func(e event.Event) {
		if e.Kind == event.Notice {
			notes = append(notes, e.Message)
		}
	}
	if _, err := Convert(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	verifyOK(t, "after the repairing rerun", out)
	if n := strings.Join(notes, "\n"); !strings.Contains(n, "removed the dangling link tensorrt") ||
		!strings.Contains(n, "linked cudnn") {
		t.Errorf("the rerun did not say what it repaired: %q", notes)
	}
}
