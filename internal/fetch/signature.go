package fetch

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/clearsign"
	"github.com/debredist/debredist/debredist/fault"
	"github.com/debredist/debredist/internal/files"
)

// maxKeyringBytes bounds the keyring file.
const maxKeyringBytes = 16 << 20

var armorPrefix = []byte("-----BEGIN PGP")

func isArmored(b []byte) bool { return bytes.HasPrefix(bytes.TrimSpace(b), armorPrefix) }

// loadKeyring reads an armored or binary OpenPGP keyring.
func loadKeyring(path string) (openpgp.EntityList, error) {
	kr, err := readKeyring(path)
	if err != nil {
		return nil, &fault.KeyringError{Path: path, Err: err}
	}
	return kr, nil
}

func readKeyring(path string) (openpgp.EntityList, error) {
	data, err := files.ReadRegular(path, maxKeyringBytes) // a named pipe is refused, never waited on
	if err != nil {
		return nil, err
	}
	var kr openpgp.EntityList
	if isArmored(data) {
		kr, err = openpgp.ReadArmoredKeyRing(bytes.NewReader(data))
	} else {
		kr, err = openpgp.ReadKeyRing(bytes.NewReader(data))
	}
	if err != nil {
		return nil, fmt.Errorf("not an OpenPGP public keyring (armored or binary): %w", err)
	}
	if len(kr) == 0 {
		return nil, errors.New("no keys in it")
	}
	return kr, nil
}

// inRelease returns the signed text of an InRelease file. With a keyring the
// clearsign signature must verify; without one the armor is stripped
// unchecked (and a file that is not clearsigned is taken as plain text).
func (f *Fetcher) inRelease(data []byte) (text []byte, signed bool, err error) {
	b, _ := clearsign.Decode(data)
	if b == nil {
		if f.keyring != nil {
			return nil, false, errors.New("InRelease is not a clearsigned message")
		}
		return data, false, nil
	}
	if f.keyring == nil {
		return b.Plaintext, false, nil
	}
	if _, err := b.VerifySignature(f.keyring, nil); err != nil {
		return nil, false, err
	}
	return b.Plaintext, true, nil
}

// checkDetached verifies a Release.gpg (armored or binary) over signed.
func (f *Fetcher) checkDetached(signed, sig []byte) error {
	var err error
	if isArmored(sig) {
		_, err = openpgp.CheckArmoredDetachedSignature(f.keyring, bytes.NewReader(signed), bytes.NewReader(sig), nil)
	} else {
		_, err = openpgp.CheckDetachedSignature(f.keyring, bytes.NewReader(signed), bytes.NewReader(sig), nil)
	}
	return err
}
