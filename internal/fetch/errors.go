package fetch

import (
	"errors"
)

// errStalled is the cancellation cause when no body bytes arrived for
// StallTimeout; errHeaderTimeout when the response headers took longer than
// Timeout.
var (
	errStalled       = errors.New("download stalled: no data received within the stall timeout")
	errHeaderTimeout = errors.New("no response headers within the timeout")
)

// retryableError marks an attempt failure that a later attempt may fix. A
// free retry does not use up the retry budget.
type retryableError struct {
	err  error
	free bool
}

func (e *retryableError) Error() string { return e.err.Error() }
func (e *retryableError) Unwrap() error { return e.err }

func retryable(err error) error { return &retryableError{err: err} }
