fn f(x: u64 -> u64) { let = x + ; }
