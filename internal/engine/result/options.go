package result

// VerifyOptions are what a caller of VerifyWith may leave out of a Result.
type VerifyOptions struct {
	// DropSignature leaves Fields.Signature, the signature as carried,
	// empty (its SHA-256 is kept unless OmitSignatureHash): an ML-DSA
	// signature is kilobytes that a caller writing results out does not
	// need.
	DropSignature bool
	// OmitSignatureHash leaves Fields.SignatureSHA256 empty: only the JSON
	// output carries it, and hashing the 4.4 KB text of an ML-DSA-65
	// signature is about a twentieth of verifying a stream of them.
	OmitSignatureHash bool
	// KeepSigned keeps in Result.Signed a copy of the bytes the signature
	// was checked over, for a caller that shows them (verify explain).
	KeepSigned bool

	borrow bool // see Borrowing
}

// Borrowing returns o asking that the Result's strings point into the
// input instead of being copied: the Result is valid only until the input
// is written again. It is for a caller done with each Result before that,
// as the stream is, which encodes each result at once; library users
// cannot ask for it.
func Borrowing(o VerifyOptions) VerifyOptions {
	o.borrow = true
	return o
}

// Borrows reports whether o came from Borrowing.
func Borrows(o VerifyOptions) bool { return o.borrow }
