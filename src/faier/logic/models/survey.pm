// The survey mechanism of dpCTL* (§3.1, Fig. 1) in PRISM; p is the probability of answering truthfully.
//   faier check src/faier/logic/models/survey.pm --set p=1/2 --neighbors '@pos~@neg' \
//       -f 'D{ln(3), 0}[X out1] & D{ln(3), 0}[X out0]'
dtmc

const double p;

module survey
  s : [0..3];
  [] s=0 -> p + (1-p)/2 : (s'=2) + (1-p)/2 : (s'=3);
  [] s=1 -> (1-p)/2 : (s'=2) + p + (1-p)/2 : (s'=3);
  [] s>=2 -> 1 : (s'=s);
endmodule

init s<=1 endinit

label "pos" = s=0;
label "neg" = s=1;
label "out1" = s=2;
label "out0" = s=3;
