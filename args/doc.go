// Package args reads the arguments of hand-written tools strictly, with
// the same coercions and the same sentences as the validator that guards
// typed tools, so a tool can hand any error it gets straight back to the
// model.
//
// A raw tool parses its arguments once and reads each by name:
//
//	a, err := args.Parse(req.Arguments)
//	if err != nil {
//		return ferry.NewErrorResult(err.Error()), nil
//	}
//	period, err1 := args.RequiredText(a, "period")
//	from, err2 := args.Date(a, "from")
//	limit, _, err3 := args.OptionalInteger(a, "limit")
//	if err := errors.Join(err1, err2, err3, args.Only(a, "period", "from", "limit")); err != nil {
//		return ferry.NewErrorResult(err.Error()), nil // one violation a line
//	}
//
// # Readers
//
// Required readers ([RequiredText], [Date], [Number], [Integer]) fail with
// "is required" when the argument is absent or null. Their optional forms
// ([Text] with a default, [OptionalDate], [OptionalNumber],
// [OptionalInteger]) report absence instead. [Flag] and [List] read an
// absent argument as false and as nil.
//
// # Errors
//
// Every error a reader returns is a [*schema.Error] whose Path is the
// argument's name ("from: expected a date written yyyy-MM-dd, got \"March
// 2026\""), or, for several bad items of a list, a [schema.Errors], in
// which [errors.As] finds the first. Joining several readers' errors with
// [errors.Join] gives one violation a line, as [schema.Errors] does.
//
// # Coercion
//
// Values are coerced as [schema.Unambiguous] says: "true" is a flag, "12"
// an integer, "£1,234.00" a number, "a, b" a list; nothing else.
package args
