package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/debredist/debredist/debredist/fault"
)

// flagSet is a flag.FlagSet that prints nothing itself, knows short
// aliases (-v for --verbose) and can parse flags after positional args.
type flagSet struct {
	*flag.FlagSet
	aliases map[string]string // short -> long
	hidden  map[string]bool   // accepted, not listed (help, manual page, completion)
}

func newFlagSet(name string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, aliases: map[string]string{}, hidden: map[string]bool{}}
}

// hide keeps the flag name (and its aliases) out of the listings.
func (f *flagSet) hide(name string) {
	f.hidden[name] = true
	for s, l := range f.aliases {
		if l == name {
			f.hidden[s] = true
		}
	}
}

// visible calls fn for each listed flag: not hidden, aliases folded into
// their long flag.
func (f *flagSet) visible(fn func(fl *flag.Flag)) {
	f.VisitAll(func(fl *flag.Flag) {
		if _, alias := f.aliases[fl.Name]; !alias && !f.hidden[fl.Name] {
			fn(fl)
		}
	})
}

// alias registers short as another name of the already defined flag long.
func (f *flagSet) alias(short, long string) {
	fl := f.Lookup(long)
	f.Var(fl.Value, short, fl.Usage)
	f.aliases[short] = long
}

// parse parses args. With stopAtFirst it stops at the first positional
// argument (the command name); otherwise flags and positional arguments
// may be mixed (`verify OUT --json`), and everything after "--" is
// positional.
func (f *flagSet) parse(args []string, stopAtFirst bool) ([]string, error) {
	var pos []string
	for {
		if err := f.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errHelp
			}
			return nil, &fault.UsageError{Msg: err.Error()}
		}
		rest := f.Args()
		if stopAtFirst || len(rest) == 0 {
			return append(pos, rest...), nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// printDefaults writes the flags as "  -v, --verbose" lines with their
// usage below, aliases folded into their long flag.
func (f *flagSet) printDefaults(w io.Writer) {
	short := map[string]string{}
	for s, l := range f.aliases {
		short[l] = s
	}
	f.visible(func(fl *flag.Flag) {
		name := "--" + fl.Name
		if s, ok := short[fl.Name]; ok {
			name = "-" + s + ", " + name
		}
		typ, usage := flag.UnquoteUsage(fl)
		if typ != "" {
			name += " " + typ
		}
		if _, isBool := fl.Value.(interface{ IsBoolFlag() bool }); !isBool && fl.DefValue != "" && fl.DefValue != "0" {
			usage += fmt.Sprintf(" (default %s)", fl.DefValue)
		}
		fmt.Fprintf(w, "  %s\n        %s\n", name, strings.ReplaceAll(usage, "\n", "\n        "))
	})
}

// listFlag collects a repeatable, comma-separated flag (--only a,b --only c).
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}
