package com.example;
// A writeObject that writes 300 bytes of primitive data: a TC_BLOCKDATALONG.
public class Big implements java.io.Serializable {
  private static final long serialVersionUID = 4L;
  private void writeObject(java.io.ObjectOutputStream out) throws java.io.IOException {
    out.defaultWriteObject();
    out.write(new byte[300]);
  }
}
