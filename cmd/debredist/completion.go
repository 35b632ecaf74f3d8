package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/debredist/debredist/debredist"
)

var completionCmd = &command{
	name:    "completion",
	args:    "bash|zsh|fish",
	summary: "print a shell completion script",
	help: `Prints a completion script for bash, zsh or fish: commands, their flags (with
their descriptions in zsh and fish), JetPack versions after --jetpack, built-in
profile names after "profiles --json", and file names where a flag takes a file.`,
	example: `debredist completion bash > ~/.local/share/bash-completion/completions/debredist
debredist completion zsh > ~/.zfunc/_debredist  # zsh, with fpath+=(~/.zfunc) in ~/.zshrc
debredist completion fish > ~/.config/fish/completions/debredist.fish`,
	flags: func(a *app, fs *flagSet) func([]string) error {
		return func(args []string) error {
			if len(args) != 1 {
				return usagef("want 1 argument, the shell: bash, zsh or fish")
			}
			cmds := completionData(a)
			switch args[0] {
			case "bash":
				return bashCompletion(a.stdout, cmds)
			case "zsh":
				return zshCompletion(a.stdout, cmds)
			case "fish":
				return fishCompletion(a.stdout, cmds)
			}
			return usagef("unknown shell %q: want bash, zsh or fish", args[0])
		}
	},
}

// compFlag is one flag of a command, as completion scripts need it.
type compFlag struct {
	name, short, usage string
	takesValue         bool
	values             []string // fixed choices, if any
	file               bool     // the value is a file or directory
}

type compCmd struct {
	name, summary string
	flags         []compFlag
	paths         bool // its arguments name local files or directories
}

// pathArgs are the argument names (command.args) that are local paths.
var pathArgs = map[string]bool{"DEB": true, "DIR": true, "OUT": true, "PATH": true, "FROM": true, "TO": true}

// takesFile reports whether a flag's value is a local file or directory:
// its usage names it `file` or `dir`, or it is a mirror (a URL or a
// directory).
func takesFile(f *flag.Flag) bool {
	meta, _ := flag.UnquoteUsage(f)
	return meta == "file" || meta == "dir" || f.Name == "mirror"
}

func completionData(a *app) []compCmd {
	jetpacks := profileNames()
	var out []compCmd
	for _, c := range commands {
		fs := newFlagSet("debredist " + c.name)
		a.globalFlags(fs, c)
		c.flags(a, fs)
		short := map[string]string{}
		for s, l := range fs.aliases {
			short[l] = s
		}
		cc := compCmd{name: c.name, summary: c.summary}
		for _, a := range strings.Fields(c.args) {
			cc.paths = cc.paths || pathArgs[a]
		}
		fs.visible(func(f *flag.Flag) {
			_, isBool := f.Value.(interface{ IsBoolFlag() bool })
			cf := compFlag{
				name:       f.Name,
				short:      short[f.Name],
				usage:      firstLine(f.Usage),
				takesValue: !isBool,
				file:       takesFile(f),
			}
			switch f.Name {
			case "jetpack":
				cf.values = jetpacks
			case "compress":
				for _, c := range debredist.Compressions() {
					cf.values = append(cf.values, c.Name)
				}
			case "preset":
				top := 0
				for _, c := range debredist.Compressions() {
					top = max(top, c.MaxPreset)
				}
				for p := 1; p <= top; p++ {
					cf.values = append(cf.values, strconv.Itoa(p))
				}
			case "format":
				cf.values = []string{debredist.InventoryJetPackNixos, debredist.InventoryLock}
				if c.name == "sbom" {
					cf.values = []string{debredist.SBOMSPDX, debredist.SBOMCycloneDX}
				}
			}
			cc.flags = append(cc.flags, cf)
		})
		out = append(out, cc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.ReplaceAll(s, "`", "")
}

func cmdNames(cmds []compCmd) string {
	var n []string
	for _, c := range cmds {
		n = append(n, c.name)
	}
	return strings.Join(n, " ")
}

func bashCompletion(w io.Writer, cmds []compCmd) error {
	var b strings.Builder
	b.WriteString("# bash completion for debredist (debredist completion bash)\n")
	b.WriteString("_debredist() {\n")
	b.WriteString("  local cur prev cmd opts i\n")
	b.WriteString("  cur=\"${COMP_WORDS[COMP_CWORD]}\"\n  prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n  cmd=\"\"\n")
	b.WriteString(
		"  for ((i = 1; i < COMP_CWORD; i++)); do\n    case \"${COMP_WORDS[i]}\" in -*) ;; *) cmd=\"${COMP_WORDS[i]}\"; " +
			"break ;; esac\n  done\n",
	)
	fmt.Fprintf(
		&b,
		"  if [ -z \"$cmd\" ]; then\n    COMPREPLY=($(compgen -W \"%s --help --version --verbose --quiet\" -- \"$cur\"))\n"+
			"    return\n  fi\n",
		cmdNames(cmds),
	)
	b.WriteString("  case \"$prev\" in\n")
	var fileNames, choices []string
	seen := map[string]bool{}
	for _, c := range cmds {
		for _, f := range c.flags {
			if seen[f.name] {
				continue
			}
			seen[f.name] = true
			names := "--" + f.name
			if f.short != "" {
				names += "|-" + f.short
			}
			switch {
			case len(f.values) > 0:
				choices = append(
					choices,
					fmt.Sprintf(
						"    %s) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return ;;\n",
						names,
						strings.Join(f.values, " "),
					),
				)
			case f.file:
				fileNames = append(fileNames, names)
			}
		}
	}
	for _, c := range choices {
		b.WriteString(c)
	}
	if len(fileNames) > 0 {
		fmt.Fprintf(&b, "    %s) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", strings.Join(fileNames, "|"))
	}
	b.WriteString("  esac\n  case \"$cmd\" in\n")
	for _, c := range cmds {
		var opts []string
		for _, f := range c.flags {
			opts = append(opts, "--"+f.name)
			if f.short != "" {
				opts = append(opts, "-"+f.short)
			}
		}
		fmt.Fprintf(&b, "    %s) opts=\"%s\" ;;\n", c.name, strings.Join(opts, " "))
	}
	b.WriteString("  esac\n")
	fmt.Fprintf(
		&b,
		"  if [ \"$cmd\" = help ]; then COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return; fi\n",
		cmdNames(cmds),
	)
	fmt.Fprintf(
		&b,
		"  if [ \"$cmd\" = completion ]; then COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\")); return; fi\n",
	)
	fmt.Fprintf(
		&b,
		"  if [ \"$cmd\" = profiles ] && [ \"$prev\" = --json ]; then COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); "+
			"return; fi\n",
		strings.Join(profileNames(), " "),
	)
	b.WriteString(
		"  case \"$cur\" in\n    -*) COMPREPLY=($(compgen -W \"$opts --help\" -- \"$cur\")) ;;\n" +
			"    *) COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n  esac\n}\n",
	)
	b.WriteString("complete -o filenames -F _debredist debredist\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// zshQuote escapes a description for an _arguments spec ('[…]' inside '…').
func zshQuote(s string) string {
	r := strings.NewReplacer("'", "'\\''", "[", "\\[", "]", "\\]", ":", "\\:")
	return r.Replace(s)
}

func zshCompletion(w io.Writer, cmds []compCmd) error {
	var b strings.Builder
	b.WriteString("#compdef debredist\n# zsh completion for debredist (debredist completion zsh)\n\n")
	b.WriteString("_debredist() {\n  local -a commands\n  commands=(\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "    '%s:%s'\n", c.name, zshQuote(c.summary))
	}
	b.WriteString(
		"  )\n  if (( CURRENT == 2 )); then\n    _describe -t commands 'debredist command' commands\n    return\n  fi\n",
	)
	b.WriteString("  local cmd=${words[2]}\n  shift words\n  (( CURRENT-- ))\n  case $cmd in\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "    %s)\n      _arguments -s \\\n", c.name)
		for _, f := range c.flags {
			action := ""
			if f.takesValue {
				switch {
				case len(f.values) > 0:
					action = ":" + f.name + ":(" + strings.Join(f.values, " ") + ")"
				case f.file:
					action = ":" + f.name + ":_files"
				default:
					action = ":" + f.name + ": "
				}
			}
			spec := "--" + f.name
			if f.short != "" {
				spec = "{-" + f.short + ",--" + f.name + "}"
				fmt.Fprintf(&b, "        %s'[%s]%s' \\\n", spec, zshQuote(f.usage), action)
				continue
			}
			fmt.Fprintf(&b, "        '%s[%s]%s' \\\n", spec, zshQuote(f.usage), action)
		}
		switch c.name {
		case "help":
			fmt.Fprintf(&b, "        '1:command:(%s)'\n      ;;\n", cmdNames(cmds))
		case "completion":
			b.WriteString("        '1:shell:(bash zsh fish)'\n      ;;\n")
		default:
			b.WriteString("        '*:file:_files'\n      ;;\n")
		}
	}
	b.WriteString("  esac\n}\n\ncompdef _debredist debredist\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// fishQuote quotes s for fish (single quotes).
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

func fishCompletion(w io.Writer, cmds []compCmd) error {
	var b strings.Builder
	b.WriteString("# fish completion for debredist (debredist completion fish)\n")
	b.WriteString("complete -c debredist -f\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "complete -c debredist -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.summary))
	}
	for _, c := range cmds {
		cond := fishQuote("__fish_seen_subcommand_from " + c.name)
		for _, f := range c.flags {
			line := fmt.Sprintf("complete -c debredist -n %s -l %s", cond, f.name)
			if f.short != "" {
				line += " -s " + f.short
			}
			switch {
			case len(f.values) > 0:
				line += " -x -a " + fishQuote(strings.Join(f.values, " "))
			case f.file:
				line += " -r -F"
			case f.takesValue:
				line += " -x"
			}
			b.WriteString(line + " -d " + fishQuote(f.usage) + "\n")
		}
	}
	for _, c := range cmds {
		if c.paths { // files are off by default (-f above)
			fmt.Fprintf(&b, "complete -c debredist -n %s -F\n", fishQuote("__fish_seen_subcommand_from "+c.name))
		}
	}
	fmt.Fprintf(
		&b,
		"complete -c debredist -n %s -a %s\n",
		fishQuote("__fish_seen_subcommand_from help"),
		fishQuote(cmdNames(cmds)),
	)
	fmt.Fprintf(
		&b,
		"complete -c debredist -n %s -a 'bash zsh fish'\n",
		fishQuote("__fish_seen_subcommand_from completion"),
	)
	_, err := io.WriteString(w, b.String())
	return err
}

// profileNames lists what selects a built-in profile: names and aliases.
func profileNames() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range debredist.Profiles() {
		for _, n := range append([]string{p.Name}, p.Aliases...) {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}
