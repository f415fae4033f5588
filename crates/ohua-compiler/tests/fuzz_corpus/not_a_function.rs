struct S { x: u64 }
