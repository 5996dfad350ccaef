package protomcp

// SetReflectLimit lowers the bound of ReflectFiles for a test and returns
// the function that restores it.
func SetReflectLimit(n int) (restore func()) {
	old := reflectLimit
	reflectLimit = n
	return func() { reflectLimit = old }
}
