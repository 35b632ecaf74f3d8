package files

import "context"

// SHA256 returns the sha256 of a file in hex, reading it in 1 MiB steps
// and stopping when ctx is done. It reads regular files only: a named
// pipe or a device is a *NotRegularError, never waited on.
func SHA256(ctx context.Context, name string) (string, error) {
	f, err := OpenRegular(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return HashFile(ctx, f, -1)
}
