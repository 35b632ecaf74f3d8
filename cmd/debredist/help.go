package main

var helpCmd = &command{
	name:    "help",
	args:    "[command]",
	summary: "show help for debredist or a command",
	help:    "Shows the list of commands, or the flags and an example of one command.",
	example: "debredist help convert",
	flags: func(a *app, fs *flagSet) func([]string) error {
		return func(args []string) error {
			switch len(args) {
			case 0:
				a.topUsage(a.stdout)
				return nil
			case 1:
				c := lookup(args[0])
				if c == nil {
					return usagef("%s", unknownCommand(args[0]))
				}
				cfs := newFlagSet("debredist " + c.name)
				a.globalFlags(cfs, c)
				c.flags(a, cfs)
				a.commandUsage(a.stdout, c, cfs)
				return nil
			}
			return usagef("give at most one command")
		}
	},
}
