package xz

import (
	"encoding/binary"
	"hash/crc64"
	"io"
	"runtime"
	"sync"

	"github.com/debredist/debredist/internal/lzma"
)

// Block is one complete xz block as EncodeBlock makes it. Its Data is valid
// until the block is written (Stream.WriteBlock, once): the buffer then
// serves a later block.
type Block struct {
	Data         []byte // header, LZMA2 data, padding and CRC64 check
	Unpadded     int64  // unpadded size, for the index
	Uncompressed int64  // bytes of input

	buf *[]byte // Data's buffer, recycled by Stream.WriteBlock
}

// outBufs recycles the buffers of written blocks: EncodeBlock encodes into
// one (the LZMA2 data lands in place, behind room for the header), and
// Stream.WriteBlock puts it back once written. So the output of a block
// exists once (no copy out of a scratch buffer that an idle encoder would
// keep), and a long archive reuses a few buffers instead of leaving one
// per block to the garbage collector.
var outBufs sync.Pool // of *[]byte

// headRoom is the room EncodeBlock leaves for the block header in front of
// the LZMA2 data: at most 2 + 9 + 9 + 3 bytes, padded, plus its CRC32.
const headRoom = 32

// encoderPool keeps up to GOMAXPROCS idle encoders per Params: their match
// finder tables (about 40 MiB) are reused by the next block. Reuse never
// changes the output: Encode resets every table.
var encoderPool struct {
	sync.Mutex
	free map[lzma.Params][]*lzma.Encoder
}

// slots bounds the blocks being compressed at once across all callers to
// the number of cores, so that several archives written at once (convert's
// --jobs) hold no more encoders (about 50 MiB each) than there are cores.
var slots = make(chan struct{}, runtime.GOMAXPROCS(0))

func getEncoder(p lzma.Params) *lzma.Encoder {
	slots <- struct{}{}
	encoderPool.Lock()
	defer encoderPool.Unlock()
	if free := encoderPool.free[p]; len(free) > 0 {
		e := free[len(free)-1]
		encoderPool.free[p] = free[:len(free)-1]
		return e
	}
	return lzma.NewEncoder(p)
}

func putEncoder(p lzma.Params, e *lzma.Encoder) {
	defer func() { <-slots }()
	encoderPool.Lock()
	defer encoderPool.Unlock()
	if encoderPool.free == nil {
		encoderPool.free = map[lzma.Params][]*lzma.Encoder{}
	}
	if len(encoderPool.free[p]) < runtime.GOMAXPROCS(0) {
		encoderPool.free[p] = append(encoderPool.free[p], e)
	}
}

// EncodeBlock compresses src with the LZMA2 encoder settings p (see
// lzma.Level) into one complete xz block: a header carrying both sizes and
// the dictionary size, the LZMA2 data, padding and the CRC64 of src. It is
// a pure function of src and p, safe for concurrent use; at most GOMAXPROCS
// blocks are compressed at once in the whole process (the others wait).
func EncodeBlock(src []byte, p lzma.Params) Block {
	e := getEncoder(p)
	// The declared dictionary need not exceed the block.
	dict := e.DictSize()
	for dict > 4096 && dict/2 >= len(src) {
		dict /= 2
	}
	bp, _ := outBufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	buf := e.Encode(append((*bp)[:0], make([]byte, headRoom)...), src)
	putEncoder(p, e)
	var h [headRoom]byte
	hdr := appendBlockHeader(h[:0], int64(len(buf)-headRoom), int64(len(src)), dict)
	if len(hdr) > headRoom {
		panic("xz: block header longer than headRoom")
	}
	start := headRoom - len(hdr)
	copy(buf[start:], hdr)
	unpadded := len(buf) - start + 8
	for (len(buf)-start)%4 != 0 {
		buf = append(buf, 0)
	}
	buf = binary.LittleEndian.AppendUint64(buf, crc64.Checksum(src, crc64Table))
	*bp = buf
	return Block{Data: buf[start:], Unpadded: int64(unpadded), Uncompressed: int64(len(src)), buf: bp}
}

// Stream assembles blocks into one xz stream with CRC64 checks: the stream
// header before the first block, the index and footer on Close.
type Stream struct {
	w       io.Writer
	records []record
	started bool
}

// NewStream returns a Stream writing to w.
func NewStream(w io.Writer) *Stream { return &Stream{w: w} }

func (s *Stream) header() error {
	if s.started {
		return nil
	}
	s.started = true
	_, err := s.w.Write(appendStreamHeader(nil, CheckCRC64))
	return err
}

// WriteBlock writes the next block of the stream and takes b: its Data
// must not be used afterwards (the buffer serves a later block).
func (s *Stream) WriteBlock(b Block) error {
	if err := s.header(); err != nil {
		return err
	}
	s.records = append(s.records, record{b.Unpadded, b.Uncompressed})
	_, err := s.w.Write(b.Data)
	if b.buf != nil {
		outBufs.Put(b.buf)
	}
	return err
}

// Close writes the index and the stream footer (and the header of a
// stream without blocks). It does not close the underlying writer.
func (s *Stream) Close() error {
	if err := s.header(); err != nil {
		return err
	}
	index := appendIndex(nil, s.records)
	if _, err := s.w.Write(index); err != nil {
		return err
	}
	_, err := s.w.Write(appendStreamFooter(nil, len(index), CheckCRC64))
	return err
}
