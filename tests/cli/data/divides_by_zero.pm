// A constant of the file divides by zero: Storm's simplification would end the process (SIGFPE).
dtmc

const double p = 3/0;

module coin
  s : [0..2];
  [] s=0 -> p : (s'=1) + 1-p : (s'=2);
  [] s>0 -> 1 : (s'=s);
endmodule
