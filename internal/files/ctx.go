package files

import (
	"context"
	"io"
)

// ContextReader returns a reader of r that stops a long read or copy with
// ctx's error once ctx is done (checked before each Read).
func ContextReader(ctx context.Context, r io.Reader) io.Reader { return ctxReader{ctx, r} }

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
