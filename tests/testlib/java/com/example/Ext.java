package com.example;
// An Externalizable class: writeExternal's data in block-data mode.
public class Ext implements java.io.Externalizable {
  private static final long serialVersionUID = 5L;
  public Ext() {}
  public void writeExternal(java.io.ObjectOutput out) throws java.io.IOException {
    out.writeShort(7);
    out.writeObject("inside");
  }
  public void readExternal(java.io.ObjectInput in) {}
}
