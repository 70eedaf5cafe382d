// 0 to a negative power is 1/0: Storm would end the process (SIGFPE).
dtmc

const double p = pow(0, -1);

module coin
  s : [0..2];
  [] s=0 -> p : (s'=1) + 1-p : (s'=2);
  [] s>0 -> 1 : (s'=s);
endmodule
