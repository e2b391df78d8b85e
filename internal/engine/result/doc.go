// Package result is the verification of one receipt as a value: Result and
// its parts, their JSON form (the output contract) and the compact binary
// form a stream spools, the entry a stream's chain and nonce index keeps,
// and the few operations only package verify and package stream make on a
// Result (Set, Fold, Judge, Detach, Borrowing).
//
// Package verify names these types as its own (type aliases) and package
// stream imports this one, so both see one definition.
package result
