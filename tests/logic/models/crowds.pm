// Crowds (Reiter & Rubin): a sender hides among CrowdSize members by handing its
// message to a random member, who delivers it or, with probability PF, hands it on.
// badC members are corrupt and report whoever handed them the message.  Two honest
// members, A and B, are the possible senders (who=0: A sends, who=1: B sends), so
// Crowds is private when a corrupt report is about as likely whichever of them sent.
// faier's test model; every constant is set with --set, e.g.
//   faier check tests/logic/models/crowds.pm --set PF=4/5 --set badC=1 --set CrowdSize=5 \
//       --set TotalRuns=2 --neighbors '@sentA~@sentB' -f 'D{ln(2), 0}[F reportedA]'
dtmc

const double PF;     // probability that an honest member hands the message on
const int badC;      // corrupt members
const int CrowdSize; // members in all: A, B, the corrupt ones and the other honest ones
const int TotalRuns; // runs of the protocol, all from the same sender

formula toBad = badC / CrowdSize;
formula toOne = 1 / CrowdSize;
formula toRest = (CrowdSize - badC - 2) / CrowdSize;

module crowds
  who : [0..1];             // the sender, fixed: 0 is A, 1 is B
  phase : [0..2];           // 0 about to start, 1 an honest member holds it, 2 run over
  holder : [0..2];          // the honest holder: 0 A, 1 B, 2 another honest member
  runs : [0..TotalRuns];    // runs over
  seenA : [0..TotalRuns];   // reports naming A
  seenB : [0..TotalRuns];   // reports naming B

  // The sender hands its message to a random member (a corrupt one reports the sender).
  [] phase = 0 & who = 0 ->
      toBad : (phase' = 2) & (seenA' = seenA + 1)
    + toOne : (phase' = 1) & (holder' = 0)
    + toOne : (phase' = 1) & (holder' = 1)
    + toRest : (phase' = 1) & (holder' = 2);
  [] phase = 0 & who = 1 ->
      toBad : (phase' = 2) & (seenB' = seenB + 1)
    + toOne : (phase' = 1) & (holder' = 0)
    + toOne : (phase' = 1) & (holder' = 1)
    + toRest : (phase' = 1) & (holder' = 2);
  // An honest member hands it on with probability PF, or delivers it.
  [] phase = 1 & holder = 0 ->
      PF * toBad : (phase' = 2) & (seenA' = seenA + 1)
    + PF * toOne : (holder' = 0)
    + PF * toOne : (holder' = 1)
    + PF * toRest : (holder' = 2)
    + 1 - PF : (phase' = 2);
  [] phase = 1 & holder = 1 ->
      PF * toBad : (phase' = 2) & (seenB' = seenB + 1)
    + PF * toOne : (holder' = 0)
    + PF * toOne : (holder' = 1)
    + PF * toRest : (holder' = 2)
    + 1 - PF : (phase' = 2);
  [] phase = 1 & holder = 2 ->
      PF * toBad : (phase' = 2)
    + PF * toOne : (holder' = 0)
    + PF * toOne : (holder' = 1)
    + PF * toRest : (holder' = 2)
    + 1 - PF : (phase' = 2);
  [] phase = 2 & runs + 1 < TotalRuns -> (phase' = 0) & (holder' = who) & (runs' = runs + 1);
  [] phase = 2 & runs + 1 = TotalRuns -> (runs' = TotalRuns);
  [] phase = 2 & runs = TotalRuns -> true;
endmodule

init phase = 0 & runs = 0 & seenA = 0 & seenB = 0 & holder = who endinit

label "sentA" = who = 0 & phase = 0 & runs = 0;
label "sentB" = who = 1 & phase = 0 & runs = 0;
label "done" = runs = TotalRuns;
label "reportedA" = seenA > 0;
label "reportedB" = seenB > 0;
